#ifndef MULTIAUTH_CLIBCURL_SHIM_H
#define MULTIAUTH_CLIBCURL_SHIM_H
#include <curl/curl.h>
#endif
