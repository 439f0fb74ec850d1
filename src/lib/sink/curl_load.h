/* curl_load.h - libcurl, loaded the first time a sink needs it
 *
 * Only the ClickHouse sink talks HTTP as a client, and linking libcurl
 * (with its TLS, Kerberos and LDAP libraries, thirty shared objects) into
 * every program cost each start about 6 ms before main(), browsing a file
 * included. The programs therefore do not link it: the sink loads
 * libcurl.so.4 on first use and calls it through this table.
 */
#ifndef VXT_SINK_CURL_LOAD_H
#define VXT_SINK_CURL_LOAD_H

#include <stddef.h>
#include <curl/curl.h>

/* The libcurl functions the sink calls, by their libcurl names. */
struct vxt_curl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode code);
	char *(*easy_escape)(CURL *curl, const char *s, int len);
	void (*free)(void *p);
	void (*easy_cleanup)(CURL *curl);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
};

/* libcurl, loaded and initialised once (thread-safe); NULL with the reason
 * in @err (which library, which symbol, dlerror()'s words) when it cannot
 * be loaded. */
const struct vxt_curl *vxt_curl_load(char *err, size_t errlen);

#endif
