#ifndef MULTIAUTH_FIDO2_SHIMS_H
#define MULTIAUTH_FIDO2_SHIMS_H

#include <stddef.h>
#include <stdint.h>

/* libfido2, opened on first use (dlopen) rather than linked, so a process that never talks to
   an authenticator does not load it and a build needs no libfido2 headers. Each call opens the
   authenticator, does one CTAP2 operation and closes it. The path is a hidraw device
   (/dev/hidraw3), empty for the first authenticator libfido2 finds, or `unix:PATH`: a software
   authenticator serving CTAP over a UNIX socket (one frame out: command byte, 4-byte big-endian
   length, payload; one frame back: 4-byte length, payload). */

/* NULL once libfido2 is loaded, else why it cannot be. */
const char *multiauth_fido_load(void);

/* Codes of our own, beside libfido2's (which are -10 ... 0x7f). */
#define MULTIAUTH_FIDO_NO_DEVICE (-1000)
#define MULTIAUTH_FIDO_OUT_OF_MEMORY (-1001)

/* The text libfido2 gives for one of its codes. */
const char *multiauth_fido_strerr(int code);

/* Bytes handed back; free them with multiauth_fido_bytes_free. */
typedef struct {
    unsigned char *bytes;
    size_t count;
} multiauth_fido_bytes;

void multiauth_fido_bytes_free(multiauth_fido_bytes *value);

typedef struct {
    const char *rp_id;
    const char *rp_name;
    const unsigned char *user_id;
    size_t user_id_count;
    const char *user_name;
    const char *user_display_name;
    const unsigned char *client_data_hash; /* 32 bytes */
    const unsigned char *const *exclude_ids;
    const size_t *exclude_id_counts;
    size_t exclude_count;
    int resident_key;       /* 0 omit, 1 false, 2 true (libfido2's fido_opt_t) */
    int user_verification;  /* the same */
} multiauth_fido_make_request;

typedef struct {
    multiauth_fido_bytes authenticator_data; /* raw, not CBOR-wrapped */
    multiauth_fido_bytes credential_id;
} multiauth_fido_made;

/* authenticatorMakeCredential with an ES256 key; FIDO_OK (0) or an error code. */
int multiauth_fido_make_credential(const char *path, const char *pin, int timeout_ms, const multiauth_fido_make_request *request,
                                   multiauth_fido_made *made);

typedef struct {
    const char *rp_id;
    const unsigned char *client_data_hash; /* 32 bytes */
    const unsigned char *const *allow_ids;
    const size_t *allow_id_counts;
    size_t allow_count;
    int user_verification; /* 0 omit, 1 false, 2 true */
} multiauth_fido_assert_request;

typedef struct {
    multiauth_fido_bytes authenticator_data; /* raw */
    multiauth_fido_bytes signature;
    multiauth_fido_bytes credential_id;
    multiauth_fido_bytes user_handle;
} multiauth_fido_assertion;

/* authenticatorGetAssertion (user presence always asked); the first assertion. */
int multiauth_fido_get_assertion(const char *path, const char *pin, int timeout_ms, const multiauth_fido_assert_request *request,
                                 multiauth_fido_assertion *assertion);

#endif
