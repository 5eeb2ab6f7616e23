#ifndef MULTIAUTH_CURL_SHIMS_H
#define MULTIAUTH_CURL_SHIMS_H

#include <curl/curl.h>
#include <stddef.h>

/* libcurl, opened on first use (dlopen) rather than linked, so processes that never send a
   request do not load it. multiauth_curl_load() opens it once and returns NULL, or a message
   saying why it could not; every other function here may be called only after it returned
   NULL. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: the
   setopt/getinfo functions are typed wrappers. */
const char *multiauth_curl_load(void);
CURL *multiauth_curl_easy_init(void);
void multiauth_curl_easy_cleanup(CURL *handle);
void multiauth_curl_easy_reset(CURL *handle);
CURLcode multiauth_curl_easy_perform(CURL *handle);
const char *multiauth_curl_easy_strerror(CURLcode code);
struct curl_slist *multiauth_curl_slist_append(struct curl_slist *list, const char *line);
void multiauth_curl_slist_free_all(struct curl_slist *list);

CURLcode multiauth_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode multiauth_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode multiauth_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode multiauth_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode multiauth_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

typedef size_t (*multiauth_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*multiauth_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                                 curl_off_t ultotal, curl_off_t ulnow);
CURLcode multiauth_curl_setopt_data_callback(CURL *handle, CURLoption option, multiauth_curl_data_callback callback);
CURLcode multiauth_curl_setopt_progress_callback(CURL *handle, multiauth_curl_progress_callback callback);

CURLcode multiauth_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
