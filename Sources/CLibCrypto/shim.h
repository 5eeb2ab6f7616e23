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
#include <openssl/kdf.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <openssl/rsa.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>

/* Constants Swift cannot import from function-like or aliased macros. */
static const int multiauth_EVP_CTRL_GCM_SET_IVLEN = EVP_CTRL_GCM_SET_IVLEN;
static const int multiauth_EVP_CTRL_GCM_GET_TAG = EVP_CTRL_GCM_GET_TAG;
static const int multiauth_EVP_CTRL_GCM_SET_TAG = EVP_CTRL_GCM_SET_TAG;
static const unsigned long multiauth_XN_FLAG_RFC2253 = XN_FLAG_RFC2253;

#endif
