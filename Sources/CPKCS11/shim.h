#ifndef MULTIAUTH_CPKCS11_SHIM_H
#define MULTIAUTH_CPKCS11_SHIM_H

/* The PKCS#11 types and constants, from p11-kit's header (the OASIS standard's). Nothing is
   linked: modules are opened with dlopen and called through their function lists. */
/* The GNU names (ck_rv_t, struct ck_token_info), not the compatibility macros. */
#define CRYPTOKI_GNU 1
#include <p11-kit/pkcs11.h>

#endif
