/* profile_path.c - where profiles are found: the search path and names
 *
 * --profile-dir, $XDG_CONFIG_HOME/vxtrace/profiles, $VXT_PROFILE_DIR, the
 * source tree's formats/profiles when running from a build directory, then
 * the installed VXT_PROFILE_DATADIR (formats/profile.md).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "select/profile_impl.h"

bool vxt_profile_name_ok(const char *s)
{
	if (!*s || strlen(s) >= VXT_PROFILE_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

bool vxt_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* The name from a file name: basename without .yaml / .yml. */
void vxt_profile_name_from_file(const char *file, char *name)
{
	const char *b = strrchr(file, '/');
	size_t n;

	b = b ? b + 1 : file;
	n = strlen(b);
	if (vxt_ends_with(b, ".yaml"))
		n -= 5;
	else if (vxt_ends_with(b, ".yml"))
		n -= 4;
	if (n >= VXT_PROFILE_NAME_MAX)
		n = VXT_PROFILE_NAME_MAX - 1;
	memcpy(name, b, n);
	name[n] = '\0';
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* formats/profiles of the source tree when the program runs from build/. */
static bool tree_dir(char *out, size_t size)
{
	char exe[VXT_PROFILE_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';		/* .../build */
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';		/* the tree */
	if ((size_t)snprintf(out, size, "%s/formats/profiles", exe) >= size)
		return false;
	return is_dir(out);
}

static int add_dir(char dirs[][VXT_PROFILE_PATH_MAX], int n, int max, const char *a,
		   const char *b)
{
	if (n >= max || !a || !*a)
		return n;
	if ((size_t)snprintf(dirs[n], VXT_PROFILE_PATH_MAX, "%s%s", a, b ? b : "") >=
	    VXT_PROFILE_PATH_MAX)
		return n;
	for (int i = 0; i < n; i++)
		if (!strcmp(dirs[i], dirs[n]))
			return n;
	return n + 1;
}

int vxt_profile_dirs(const char *dir, char dirs[][VXT_PROFILE_PATH_MAX], int max)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char tree[VXT_PROFILE_PATH_MAX];
	int n = 0;

	n = add_dir(dirs, n, max, dir, NULL);
	if (xdg && *xdg == '/')
		n = add_dir(dirs, n, max, xdg, "/vxtrace/profiles");
	else if (home && *home)
		n = add_dir(dirs, n, max, home, "/.config/vxtrace/profiles");
	n = add_dir(dirs, n, max, getenv("VXT_PROFILE_DIR"), NULL);
	if (tree_dir(tree, sizeof(tree)))
		n = add_dir(dirs, n, max, tree, NULL);
	n = add_dir(dirs, n, max, vxt_profile_datadir(), NULL);
	return n;
}

int vxt_profile_find(const char *name, const char *dir, char path[VXT_PROFILE_PATH_MAX],
		     char err[VXT_ERRBUF_SIZE])
{
	char dirs[VXT_PROFILE_MAX_DIRS][VXT_PROFILE_PATH_MAX];
	static const char *const exts[] = { ".yaml", ".yml" };
	int n, len = 0;

	if (strchr(name, '/') || vxt_ends_with(name, ".yaml") || vxt_ends_with(name, ".yml")) {
		if (access(name, R_OK) < 0) {
			snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", name, strerror(errno));
			return -ENOENT;
		}
		snprintf(path, VXT_PROFILE_PATH_MAX, "%s", name);
		return 0;
	}
	if (!vxt_profile_name_ok(name)) {
		snprintf(err, VXT_ERRBUF_SIZE, "bad profile name '%s'", name);
		return -EINVAL;
	}
	n = vxt_profile_dirs(dir, dirs, VXT_PROFILE_MAX_DIRS);
	for (int i = 0; i < n; i++)
		for (int e = 0; e < 2; e++) {
			int len2 = snprintf(path, VXT_PROFILE_PATH_MAX, "%s/%s%s", dirs[i], name,
					    exts[e]);

			if (len2 > 0 && len2 < VXT_PROFILE_PATH_MAX && access(path, R_OK) == 0)
				return 0;
		}
	len = snprintf(err, VXT_ERRBUF_SIZE, "no profile '%s' in", name);
	for (int i = 0; i < n && len < VXT_ERRBUF_SIZE; i++)
		len += snprintf(err + len, VXT_ERRBUF_SIZE - len, "%s %s", i ? "," : "", dirs[i]);
	return -ENOENT;
}

struct vxt_profile *vxt_profile_open(const char *name, const char *dir,
				     char err[VXT_ERRBUF_SIZE])
{
	char path[VXT_PROFILE_PATH_MAX];

	if (vxt_profile_find(name, dir, path, err) < 0)
		return NULL;
	return vxt_profile_load(path, err);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int vxt_profile_list_files(const char *dir,
			   bool (*keep)(const char *file, char name[VXT_PROFILE_NAME_MAX]),
			   char names[][VXT_PROFILE_NAME_MAX], int max)
{
	char dirs[VXT_PROFILE_MAX_DIRS][VXT_PROFILE_PATH_MAX];
	int nd = vxt_profile_dirs(dir, dirs, VXT_PROFILE_MAX_DIRS), n = 0;

	for (int i = 0; i < nd; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d)) && n < max) {
			char name[VXT_PROFILE_NAME_MAX];
			bool dup = false;

			if (!keep(de->d_name, name))
				continue;
			for (int k = 0; k < n; k++)
				dup |= !strcmp(names[k], name);
			if (!dup)
				strcpy(names[n++], name);
		}
		closedir(d);
	}
	qsort(names, (size_t)n, VXT_PROFILE_NAME_MAX, cmp_names);
	return n;
}

/* A profile file: NAME.yaml or NAME.yml, NAME a valid profile name. */
static bool profile_file(const char *file, char name[VXT_PROFILE_NAME_MAX])
{
	if (!vxt_ends_with(file, ".yaml") && !vxt_ends_with(file, ".yml"))
		return false;
	vxt_profile_name_from_file(file, name);
	return vxt_profile_name_ok(name);
}

int vxt_profile_list(const char *dir, char names[][VXT_PROFILE_NAME_MAX], int max)
{
	return vxt_profile_list_files(dir, profile_file, names, max);
}
