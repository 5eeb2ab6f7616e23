#ifndef MULTIAUTH_CLIBCRYPTO_SHIM_H
#define MULTIAUTH_CLIBCRYPTO_SHIM_H

/* SHA256_Init/Update/Final are deprecated in OpenSSL 3.0 but remain the fastest
   per-call path (no EVP dispatch, no allocation); keep them without warnings. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/err.h>

#endif
