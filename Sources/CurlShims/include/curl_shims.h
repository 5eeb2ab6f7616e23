#ifndef MULTIAUTH_CURL_SHIMS_H
#define MULTIAUTH_CURL_SHIMS_H

#include <curl/curl.h>
#include <stddef.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call;
   these typed wrappers are the whole of this C target. */
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
