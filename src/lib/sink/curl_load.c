/* curl_load.c - load libcurl on first use (see curl_load.h)
 *
 * dlopen()s libcurl's run-time name (the ABI the headers describe), looks up
 * each function the sink calls, then runs curl_global_init() once. The
 * library stays loaded until exit: curl handles may live as long as a sink.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sink/curl_load.h"

#define LIBCURL_SONAME "libcurl.so.4"

static const struct {
	const char *name;
	size_t at;
} symbols[] = {
	{ "curl_global_init", offsetof(struct vxt_curl, global_init) },
	{ "curl_easy_init", offsetof(struct vxt_curl, easy_init) },
	{ "curl_easy_setopt", offsetof(struct vxt_curl, easy_setopt) },
	{ "curl_easy_perform", offsetof(struct vxt_curl, easy_perform) },
	{ "curl_easy_getinfo", offsetof(struct vxt_curl, easy_getinfo) },
	{ "curl_easy_strerror", offsetof(struct vxt_curl, easy_strerror) },
	{ "curl_easy_escape", offsetof(struct vxt_curl, easy_escape) },
	{ "curl_free", offsetof(struct vxt_curl, free) },
	{ "curl_easy_cleanup", offsetof(struct vxt_curl, easy_cleanup) },
	{ "curl_slist_append", offsetof(struct vxt_curl, slist_append) },
	{ "curl_slist_free_all", offsetof(struct vxt_curl, slist_free_all) },
};

static struct vxt_curl api;
static bool loaded;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *lib = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL), *fn;

	if (!lib) {
		snprintf(why, sizeof(why), "cannot load libcurl: %s (install libcurl4)", dlerror());
		return;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		fn = dlsym(lib, symbols[i].name);
		if (!fn) {
			snprintf(why, sizeof(why), "cannot load libcurl: %s has no %s", LIBCURL_SONAME,
				 symbols[i].name);
			return;	/* the library stays: dlclose() could run its destructors twice */
		}
		memcpy((char *)&api + symbols[i].at, &fn, sizeof(fn));
	}
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(why, sizeof(why), "cannot start libcurl: curl_global_init() failed");
		return;
	}
	loaded = true;
}

const struct vxt_curl *vxt_curl_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (loaded)
		return &api;
	snprintf(err, errlen, "%s", why);
	return NULL;
}
