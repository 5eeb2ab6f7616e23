#include "fido2_shims.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* libfido2's types, declared here (as its fido.h does) so no development package is needed. */
typedef struct fido_dev fido_dev_t;
typedef struct fido_dev_info fido_dev_info_t;
typedef struct fido_cred fido_cred_t;
typedef struct fido_assert fido_assert_t;
typedef struct {
    void *(*open)(const char *);
    void (*close)(void *);
    int (*read)(void *, unsigned char *, size_t, int);
    int (*write)(void *, const unsigned char *, size_t);
} fido_dev_io_t;
typedef struct {
    int (*rx)(fido_dev_t *, uint8_t, unsigned char *, size_t, int);
    int (*tx)(fido_dev_t *, uint8_t, const unsigned char *, size_t);
} fido_dev_transport_t;
enum { FIDO_OK = 0, FIDO_ERR_TX = -1, FIDO_ERR_RX = -2, COSE_ES256 = -7, FIDO_OPT_TRUE = 2 };

static struct {
    void (*init)(int);
    const char *(*strerr)(int);
    fido_dev_info_t *(*info_new)(size_t);
    int (*info_manifest)(fido_dev_info_t *, size_t, size_t *);
    const fido_dev_info_t *(*info_ptr)(const fido_dev_info_t *, size_t);
    const char *(*info_path)(const fido_dev_info_t *);
    void (*info_free)(fido_dev_info_t **, size_t);
    fido_dev_t *(*dev_new)(void);
    void (*dev_free)(fido_dev_t **);
    int (*dev_open)(fido_dev_t *, const char *);
    int (*dev_close)(fido_dev_t *);
    int (*dev_set_io)(fido_dev_t *, const fido_dev_io_t *);
    int (*dev_set_transport)(fido_dev_t *, const fido_dev_transport_t *);
    void *(*dev_io_handle)(const fido_dev_t *);
    int (*dev_set_timeout)(fido_dev_t *, int);
    fido_cred_t *(*cred_new)(void);
    void (*cred_free)(fido_cred_t **);
    int (*cred_set_type)(fido_cred_t *, int);
    int (*cred_set_clientdata_hash)(fido_cred_t *, const unsigned char *, size_t);
    int (*cred_set_rp)(fido_cred_t *, const char *, const char *);
    int (*cred_set_user)(fido_cred_t *, const unsigned char *, size_t, const char *, const char *, const char *);
    int (*cred_set_rk)(fido_cred_t *, int);
    int (*cred_set_uv)(fido_cred_t *, int);
    int (*cred_exclude)(fido_cred_t *, const unsigned char *, size_t);
    int (*dev_make_cred)(fido_dev_t *, fido_cred_t *, const char *);
    const unsigned char *(*cred_authdata_raw_ptr)(const fido_cred_t *);
    size_t (*cred_authdata_raw_len)(const fido_cred_t *);
    const unsigned char *(*cred_id_ptr)(const fido_cred_t *);
    size_t (*cred_id_len)(const fido_cred_t *);
    fido_assert_t *(*assert_new)(void);
    void (*assert_free)(fido_assert_t **);
    int (*assert_set_clientdata_hash)(fido_assert_t *, const unsigned char *, size_t);
    int (*assert_set_rp)(fido_assert_t *, const char *);
    int (*assert_allow_cred)(fido_assert_t *, const unsigned char *, size_t);
    int (*assert_set_up)(fido_assert_t *, int);
    int (*assert_set_uv)(fido_assert_t *, int);
    int (*dev_get_assert)(fido_dev_t *, fido_assert_t *, const char *);
    size_t (*assert_count)(const fido_assert_t *);
    const unsigned char *(*assert_authdata_ptr)(const fido_assert_t *, size_t);
    size_t (*assert_authdata_len)(const fido_assert_t *, size_t);
    const unsigned char *(*assert_sig_ptr)(const fido_assert_t *, size_t);
    size_t (*assert_sig_len)(const fido_assert_t *, size_t);
    const unsigned char *(*assert_id_ptr)(const fido_assert_t *, size_t);
    size_t (*assert_id_len)(const fido_assert_t *, size_t);
    const unsigned char *(*assert_user_id_ptr)(const fido_assert_t *, size_t);
    size_t (*assert_user_id_len)(const fido_assert_t *, size_t);
} api;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

#define RESOLVE(field, symbol)                                                                   \
    do {                                                                                         \
        *(void **)(&api.field) = dlsym(library, symbol);                                         \
        if (api.field == NULL) {                                                                 \
            snprintf(load_error, sizeof load_error, "libfido2 has no %s", symbol);              \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static void load(void) {
    void *library = dlopen("libfido2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libfido2 (%s): install libfido2-1", reason ? reason : "not found");
        return;
    }
    RESOLVE(init, "fido_init");
    RESOLVE(strerr, "fido_strerr");
    RESOLVE(info_new, "fido_dev_info_new");
    RESOLVE(info_manifest, "fido_dev_info_manifest");
    RESOLVE(info_ptr, "fido_dev_info_ptr");
    RESOLVE(info_path, "fido_dev_info_path");
    RESOLVE(info_free, "fido_dev_info_free");
    RESOLVE(dev_new, "fido_dev_new");
    RESOLVE(dev_free, "fido_dev_free");
    RESOLVE(dev_open, "fido_dev_open");
    RESOLVE(dev_close, "fido_dev_close");
    RESOLVE(dev_set_io, "fido_dev_set_io_functions");
    RESOLVE(dev_set_transport, "fido_dev_set_transport_functions");
    RESOLVE(dev_io_handle, "fido_dev_io_handle");
    RESOLVE(dev_set_timeout, "fido_dev_set_timeout");
    RESOLVE(cred_new, "fido_cred_new");
    RESOLVE(cred_free, "fido_cred_free");
    RESOLVE(cred_set_type, "fido_cred_set_type");
    RESOLVE(cred_set_clientdata_hash, "fido_cred_set_clientdata_hash");
    RESOLVE(cred_set_rp, "fido_cred_set_rp");
    RESOLVE(cred_set_user, "fido_cred_set_user");
    RESOLVE(cred_set_rk, "fido_cred_set_rk");
    RESOLVE(cred_set_uv, "fido_cred_set_uv");
    RESOLVE(cred_exclude, "fido_cred_exclude");
    RESOLVE(dev_make_cred, "fido_dev_make_cred");
    RESOLVE(cred_authdata_raw_ptr, "fido_cred_authdata_raw_ptr");
    RESOLVE(cred_authdata_raw_len, "fido_cred_authdata_raw_len");
    RESOLVE(cred_id_ptr, "fido_cred_id_ptr");
    RESOLVE(cred_id_len, "fido_cred_id_len");
    RESOLVE(assert_new, "fido_assert_new");
    RESOLVE(assert_free, "fido_assert_free");
    RESOLVE(assert_set_clientdata_hash, "fido_assert_set_clientdata_hash");
    RESOLVE(assert_set_rp, "fido_assert_set_rp");
    RESOLVE(assert_allow_cred, "fido_assert_allow_cred");
    RESOLVE(assert_set_up, "fido_assert_set_up");
    RESOLVE(assert_set_uv, "fido_assert_set_uv");
    RESOLVE(dev_get_assert, "fido_dev_get_assert");
    RESOLVE(assert_count, "fido_assert_count");
    RESOLVE(assert_authdata_ptr, "fido_assert_authdata_ptr");
    RESOLVE(assert_authdata_len, "fido_assert_authdata_len");
    RESOLVE(assert_sig_ptr, "fido_assert_sig_ptr");
    RESOLVE(assert_sig_len, "fido_assert_sig_len");
    RESOLVE(assert_id_ptr, "fido_assert_id_ptr");
    RESOLVE(assert_id_len, "fido_assert_id_len");
    RESOLVE(assert_user_id_ptr, "fido_assert_user_id_ptr");
    RESOLVE(assert_user_id_len, "fido_assert_user_id_len");
    api.init(0);
    loaded = 1;
}

const char *multiauth_fido_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

const char *multiauth_fido_strerr(int code) {
    if (code == MULTIAUTH_FIDO_NO_DEVICE) return "no FIDO2 authenticator is connected";
    if (code == MULTIAUTH_FIDO_OUT_OF_MEMORY) return "out of memory";
    return api.strerr(code);
}

void multiauth_fido_bytes_free(multiauth_fido_bytes *value) {
    if (value->bytes != NULL) {
        memset(value->bytes, 0, value->count);
        free(value->bytes);
    }
    value->bytes = NULL;
    value->count = 0;
}

static int copy_bytes(multiauth_fido_bytes *into, const unsigned char *bytes, size_t count) {
    into->bytes = NULL;
    into->count = 0;
    if (bytes == NULL || count == 0) return FIDO_OK;
    if ((into->bytes = malloc(count)) == NULL) return MULTIAUTH_FIDO_OUT_OF_MEMORY;
    memcpy(into->bytes, bytes, count);
    into->count = count;
    return FIDO_OK;
}

/* --- the UNIX socket transport of software authenticators --- */

static void *socket_open(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    const char *file = path + strlen("unix:");
    if (strlen(file) >= sizeof address.sun_path) return NULL;
    strcpy(address.sun_path, file);
    int descriptor = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (descriptor < 0) return NULL;
    if (connect(descriptor, (struct sockaddr *)&address, sizeof address) != 0) {
        close(descriptor);
        return NULL;
    }
    int *handle = malloc(sizeof *handle);
    if (handle == NULL) {
        close(descriptor);
        return NULL;
    }
    *handle = descriptor;
    return handle;
}

static void socket_close(void *handle) {
    close(*(int *)handle);
    free(handle);
}

/* libfido2 asks for read and write functions even when a transport replaces them. */
static int socket_unused_read(void *handle, unsigned char *buffer, size_t count, int ms) { return -1; }
static int socket_unused_write(void *handle, const unsigned char *buffer, size_t count) { return -1; }

static int write_all(int descriptor, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = send(descriptor, bytes, count, MSG_NOSIGNAL);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        count -= (size_t)written;
    }
    return 0;
}

/* Reads exactly count bytes, waiting at most ms in all (a negative ms waits 30 s). */
static int read_all(int descriptor, unsigned char *bytes, size_t count, int ms) {
    int budget = ms < 0 ? 30000 : ms;
    while (count > 0) {
        struct pollfd waiting = {.fd = descriptor, .events = POLLIN};
        int ready = poll(&waiting, 1, budget);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return -1;
        ssize_t got = recv(descriptor, bytes, count, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        bytes += got;
        count -= (size_t)got;
    }
    return 0;
}

static int socket_tx(fido_dev_t *dev, uint8_t command, const unsigned char *payload, size_t count) {
    int descriptor = *(int *)api.dev_io_handle(dev);
    unsigned char header[5] = {command, (unsigned char)(count >> 24), (unsigned char)(count >> 16), (unsigned char)(count >> 8),
                               (unsigned char)count};
    if (write_all(descriptor, header, sizeof header) != 0 || (count > 0 && write_all(descriptor, payload, count) != 0)) return -1;
    return (int)count;
}

static int socket_rx(fido_dev_t *dev, uint8_t command, unsigned char *buffer, size_t capacity, int ms) {
    int descriptor = *(int *)api.dev_io_handle(dev);
    unsigned char header[4];
    if (read_all(descriptor, header, sizeof header, ms) != 0) return -1;
    size_t count = ((size_t)header[0] << 24) | ((size_t)header[1] << 16) | ((size_t)header[2] << 8) | header[3];
    if (count > capacity || read_all(descriptor, buffer, count, ms) != 0) return -1;
    return (int)count;
}

static const fido_dev_io_t socket_io = {socket_open, socket_close, socket_unused_read, socket_unused_write};
static const fido_dev_transport_t socket_transport = {socket_rx, socket_tx};

/* --- opening --- */

/* An open device for path (the first one found when path is empty), or an error code. */
static int open_device(const char *path, int timeout_ms, fido_dev_t **opened) {
    char found[4096] = {0};
    if (path == NULL || *path == '\0') {
        fido_dev_info_t *list = api.info_new(8);
        size_t count = 0;
        if (list == NULL) return MULTIAUTH_FIDO_OUT_OF_MEMORY;
        int status = api.info_manifest(list, 8, &count);
        if (status == FIDO_OK && count > 0) snprintf(found, sizeof found, "%s", api.info_path(api.info_ptr(list, 0)));
        api.info_free(&list, 8);
        if (status != FIDO_OK) return status;
        if (count == 0) return MULTIAUTH_FIDO_NO_DEVICE;
        path = found;
    }
    fido_dev_t *dev = api.dev_new();
    if (dev == NULL) return MULTIAUTH_FIDO_OUT_OF_MEMORY;
    int status = FIDO_OK;
    if (strncmp(path, "unix:", 5) == 0) {
        if ((status = api.dev_set_io(dev, &socket_io)) == FIDO_OK) status = api.dev_set_transport(dev, &socket_transport);
    }
    if (status == FIDO_OK) status = api.dev_set_timeout(dev, timeout_ms);
    if (status == FIDO_OK) status = api.dev_open(dev, path);
    if (status != FIDO_OK) {
        api.dev_free(&dev);
        return strncmp(path, "unix:", 5) == 0 && status == -9 ? MULTIAUTH_FIDO_NO_DEVICE : status;
    }
    *opened = dev;
    return FIDO_OK;
}

static void close_device(fido_dev_t **dev) {
    api.dev_close(*dev);
    api.dev_free(dev);
}

int multiauth_fido_make_credential(const char *path, const char *pin, int timeout_ms, const multiauth_fido_make_request *request,
                                   multiauth_fido_made *made) {
    memset(made, 0, sizeof *made);
    fido_dev_t *dev = NULL;
    int status = open_device(path, timeout_ms, &dev);
    if (status != FIDO_OK) return status;
    fido_cred_t *cred = api.cred_new();
    if (cred == NULL) status = MULTIAUTH_FIDO_OUT_OF_MEMORY;
    if (status == FIDO_OK) status = api.cred_set_type(cred, COSE_ES256);
    if (status == FIDO_OK) status = api.cred_set_clientdata_hash(cred, request->client_data_hash, 32);
    if (status == FIDO_OK) status = api.cred_set_rp(cred, request->rp_id, request->rp_name);
    if (status == FIDO_OK)
        status = api.cred_set_user(cred, request->user_id, request->user_id_count, request->user_name, request->user_display_name, NULL);
    if (status == FIDO_OK) status = api.cred_set_rk(cred, request->resident_key);
    if (status == FIDO_OK) status = api.cred_set_uv(cred, request->user_verification);
    for (size_t index = 0; status == FIDO_OK && index < request->exclude_count; index++)
        status = api.cred_exclude(cred, request->exclude_ids[index], request->exclude_id_counts[index]);
    if (status == FIDO_OK) status = api.dev_make_cred(dev, cred, pin);
    if (status == FIDO_OK) status = copy_bytes(&made->authenticator_data, api.cred_authdata_raw_ptr(cred), api.cred_authdata_raw_len(cred));
    if (status == FIDO_OK) status = copy_bytes(&made->credential_id, api.cred_id_ptr(cred), api.cred_id_len(cred));
    if (status != FIDO_OK) {
        multiauth_fido_bytes_free(&made->authenticator_data);
        multiauth_fido_bytes_free(&made->credential_id);
    }
    if (cred != NULL) api.cred_free(&cred);
    close_device(&dev);
    return status;
}

/* fido_assert_authdata_ptr gives the authenticator data as a CBOR byte string: its content. */
static int copy_cbor_bytes(multiauth_fido_bytes *into, const unsigned char *cbor, size_t count) {
    if (cbor == NULL || count < 1 || (cbor[0] >> 5) != 2) return FIDO_ERR_RX;
    size_t header = 1, length = cbor[0] & 0x1f;
    if (length == 24 && count >= 2) {
        header = 2;
        length = cbor[1];
    } else if (length == 25 && count >= 3) {
        header = 3;
        length = ((size_t)cbor[1] << 8) | cbor[2];
    } else if (length > 23) {
        return FIDO_ERR_RX;
    }
    if (header + length != count) return FIDO_ERR_RX;
    return copy_bytes(into, cbor + header, length);
}

int multiauth_fido_get_assertion(const char *path, const char *pin, int timeout_ms, const multiauth_fido_assert_request *request,
                                 multiauth_fido_assertion *assertion) {
    memset(assertion, 0, sizeof *assertion);
    fido_dev_t *dev = NULL;
    int status = open_device(path, timeout_ms, &dev);
    if (status != FIDO_OK) return status;
    fido_assert_t *asked = api.assert_new();
    if (asked == NULL) status = MULTIAUTH_FIDO_OUT_OF_MEMORY;
    if (status == FIDO_OK) status = api.assert_set_clientdata_hash(asked, request->client_data_hash, 32);
    if (status == FIDO_OK) status = api.assert_set_rp(asked, request->rp_id);
    if (status == FIDO_OK) status = api.assert_set_up(asked, FIDO_OPT_TRUE);
    if (status == FIDO_OK) status = api.assert_set_uv(asked, request->user_verification);
    for (size_t index = 0; status == FIDO_OK && index < request->allow_count; index++)
        status = api.assert_allow_cred(asked, request->allow_ids[index], request->allow_id_counts[index]);
    if (status == FIDO_OK) status = api.dev_get_assert(dev, asked, pin);
    if (status == FIDO_OK && api.assert_count(asked) < 1) status = FIDO_ERR_RX;
    if (status == FIDO_OK) status = copy_cbor_bytes(&assertion->authenticator_data, api.assert_authdata_ptr(asked, 0), api.assert_authdata_len(asked, 0));
    if (status == FIDO_OK) status = copy_bytes(&assertion->signature, api.assert_sig_ptr(asked, 0), api.assert_sig_len(asked, 0));
    if (status == FIDO_OK) status = copy_bytes(&assertion->credential_id, api.assert_id_ptr(asked, 0), api.assert_id_len(asked, 0));
    if (status == FIDO_OK) status = copy_bytes(&assertion->user_handle, api.assert_user_id_ptr(asked, 0), api.assert_user_id_len(asked, 0));
    if (status != FIDO_OK) {
        multiauth_fido_bytes_free(&assertion->authenticator_data);
        multiauth_fido_bytes_free(&assertion->signature);
        multiauth_fido_bytes_free(&assertion->credential_id);
        multiauth_fido_bytes_free(&assertion->user_handle);
    }
    if (asked != NULL) api.assert_free(&asked);
    close_device(&dev);
    return status;
}
