#include "curl_shims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* libcurl is opened on first use, not linked: a process that never sends a request (sign,
   verify, token with a valid token) does not load libcurl and the thirty libraries it
   depends on. Every entry point MultiAuth uses is resolved once, together. */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} api;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

#ifdef __APPLE__
static const char *const library_names[] = {"libcurl.4.dylib", "libcurl.dylib", NULL};
#else
static const char *const library_names[] = {"libcurl.so.4", "libcurl.so", NULL};
#endif

#define RESOLVE(field, symbol)                                                                   \
    do {                                                                                         \
        *(void **)(&api.field) = dlsym(library, symbol);                                         \
        if (api.field == NULL) {                                                                 \
            snprintf(load_error, sizeof load_error, "libcurl has no %s", symbol);                \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static void load(void) {
    void *library = NULL;
    for (const char *const *name = library_names; *name != NULL && library == NULL; name++) {
        library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl (%s): install libcurl4", reason ? reason : "not found");
        return;
    }
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_reset, "curl_easy_reset");
    RESOLVE(easy_perform, "curl_easy_perform");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    api.global_init(CURL_GLOBAL_ALL);
    loaded = 1;
}

const char *multiauth_curl_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

/* The functions below are called only after multiauth_curl_load() returned NULL. */
CURL *multiauth_curl_easy_init(void) { return api.easy_init(); }
void multiauth_curl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
void multiauth_curl_easy_reset(CURL *handle) { api.easy_reset(handle); }
CURLcode multiauth_curl_easy_perform(CURL *handle) { return api.easy_perform(handle); }
const char *multiauth_curl_easy_strerror(CURLcode code) { return api.easy_strerror(code); }
struct curl_slist *multiauth_curl_slist_append(struct curl_slist *list, const char *line) { return api.slist_append(list, line); }
void multiauth_curl_slist_free_all(struct curl_slist *list) { api.slist_free_all(list); }

CURLcode multiauth_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode multiauth_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode multiauth_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode multiauth_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode multiauth_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return api.easy_setopt(handle, option, value);
}

CURLcode multiauth_curl_setopt_data_callback(CURL *handle, CURLoption option, multiauth_curl_data_callback callback) {
    return api.easy_setopt(handle, option, callback);
}

CURLcode multiauth_curl_setopt_progress_callback(CURL *handle, multiauth_curl_progress_callback callback) {
    return api.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode multiauth_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return api.easy_getinfo(handle, info, value);
}
