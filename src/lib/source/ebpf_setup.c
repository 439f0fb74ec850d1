/* ebpf_setup.c - what the ebpf source sets before its programs load
 *
 * The ring's size, the objects chosen (want_dev[]), the kernel
 * speculation's windows, the kernel's part of the filter, the check that
 * the kernel has every tracepoint the programs attach to, and libbpf's
 * messages turned into one-line reasons for a refusal (ebpf_impl.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef VXT_HAVE_EBPF

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "source/ebpf_impl.h"
#include "source/kmod_spec.h"
#include "vxtrace/sysdev.h"

/* "64K", "3M", "1G", or bytes when it is no whole one of them. */
static const char *size_text(size_t n, char buf[32])
{
	if (n && n % (1u << 30) == 0)
		snprintf(buf, 32, "%zuG", n >> 30);
	else if (n && n % (1u << 20) == 0)
		snprintf(buf, 32, "%zuM", n >> 20);
	else if (n && n % (1u << 10) == 0)
		snprintf(buf, 32, "%zuK", n >> 10);
	else
		snprintf(buf, 32, "%zu", n);
	return buf;
}

/* The ring for --bufsize @want (0: the default): a power of two from
 * EBPF_MIN_BUF to EBPF_MAX_BUF, as BPF ring buffers are. One outside is
 * refused; one rounded up is said in the source's note.
 * @return the ring's size in bytes, or -EINVAL with the message in @s. */
long vxt_ebpf_ring_size(struct vxt_source *s, size_t want)
{
	char a[32], b[32], c[32];
	size_t sz = EBPF_MIN_BUF;

	if (!want)
		return EBPF_DEFAULT_BUF;
	if (want < EBPF_MIN_BUF || want > EBPF_MAX_BUF)
		return vxt_source_seterr(s, -EINVAL, "ebpf: --bufsize %s: the ring buffer is %s "
					 "to %s", size_text(want, a), size_text(EBPF_MIN_BUF, b),
					 size_text(EBPF_MAX_BUF, c));
	while (sz < want)
		sz <<= 1;
	if (sz != want)
		vxt_source_add_note(s, "--bufsize %s: the ring buffer is %s (a power of two)",
				    size_text(want, a), size_text(sz, b));
	return (long)sz;
}

/* The kernel's part of the filter into the kfilter map. */
int vxt_ebpf_load_kfilter(struct vxt_source *s, struct ebpf *e, const struct vxt_kfilter *k)
{
	for (uint32_t i = 0; i < k->n && i < VXT_BPF_KF_TESTS; i++) {
		const struct vxt_kfilter_test *t = &k->test[i];
		struct vxt_bpf_kftest v = {
			.known = t->known, .word = t->word, .shift = t->shift,
			.t = t->t, .f = t->f, .mask = t->mask, .lo = t->lo, .span = t->span,
		};

		if (bpf_map__update_elem(e->skel->maps.kfilter, &i, sizeof(i), &v, sizeof(v),
					 BPF_ANY))
			return vxt_source_seterr(s, -errno, "ebpf: cannot load the filter: %s",
						 strerror(errno));
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The devices of @objects into the programs' want_dev[] (before load),
 * ascending and each once, for their binary search, and into the object
 * table: a device chosen is shown before its first I/O (iostat's zeros). */
int vxt_ebpf_select_objects(struct vxt_source *s, struct ebpf *e, const char *objects)
{
	uint32_t devs[VXT_BPF_MAX_DEVS];
	int n, i, k = 0;

	n = vxt_sysdev_resolve(objects, devs, VXT_BPF_MAX_DEVS, s->err);
	if (n < 0)
		return n;
	qsort(devs, (size_t)n, sizeof(devs[0]), cmp_u32);
	for (i = 0; i < n; i++)
		if (!k || devs[i] != devs[k - 1])
			devs[k++] = devs[i];
	memcpy((void *)e->skel->rodata->want_dev, devs, (size_t)k * sizeof(devs[0]));
	e->skel->rodata->want_n = (uint32_t)k;
	for (i = 0; i < k; i++)
		if (vxt_chanev_object(s, &e->names, devs[i]) < 0)
			return vxt_source_seterr(s, -ENOMEM, "out of memory");
	return 0;
}

/* libbpf's own messages go nowhere; failures are reported by our errors,
 * which quote libbpf's reason for refusing a program: the program's name
 * and the verifier's last word (or the relocation it could not make).
 * Loading happens once per process, in open(). */
static char libbpf_why[200];

/* The line of @log holding @what, or its last line before @end, into @out. */
static void log_reason(const char *log, char *out, size_t size)
{
	const char *end = strstr(log, "-- END PROG LOAD LOG --"), *p, *line = NULL, *q;

	if (!end)
		end = log + strlen(log);
	if ((p = strstr(log, "failed to resolve CO-RE relocation")) && p < end) {
		line = p;
	} else {	/* the last line that is not the verifier's statistics */
		for (p = log; p < end; p = q + 1) {
			q = memchr(p, '\n', (size_t)(end - p));
			if (!q)
				q = end;
			if (q > p && strncmp(p, "processed ", 10) && strncmp(p, "verification time", 17) &&
			    strncmp(p, "stack depth", 11) && strncmp(p, "-- ", 3))
				line = p;
			if (q == end)
				break;
		}
	}
	if (!line)
		return;
	q = memchr(line, '\n', (size_t)(end - line));
	snprintf(out, size, "%.*s", (int)((q ? q : end) - line), line);
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *text = NULL, name[64], reason[120] = "";
	const char *p;

	if (level != LIBBPF_WARN || libbpf_why[0] || vasprintf(&text, fmt, ap) < 0)
		return 0;
	if (!strncmp(text, "libbpf: prog '", 14) && (p = strstr(text, "-- BEGIN PROG LOAD LOG --"))) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(text + 14, "'"), text + 14);
		log_reason(p, reason, sizeof(reason));
		snprintf(libbpf_why, sizeof(libbpf_why), "program %s: %s", name,
			 reason[0] ? reason : "no reason given");
		for (char *c = libbpf_why; *c; c++)	/* one printable line */
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
	}
	free(text);
	return 0;
}

/* Does the kernel (its BTF at @path) have every tracepoint the programs
 * attach to? The phase programs (vxt_ph_*) are loaded with @phases only,
 * each whose tracepoint the kernel lacks left out and named in e->missing.
 * @return 0 or a negative errno with the error set. */
int vxt_ebpf_check_tracepoints(struct vxt_source *s, struct ebpf *e, const char *path,
			       bool phases)
{
	struct bpf_program *prog;
	struct btf *btf = btf__parse(path, NULL);
	int rc = 0;

	if (!btf) {
		char why[120];

		rc = errno ? -errno : -EIO;
		libbpf_strerror(rc, why, sizeof(why));
		return vxt_source_seterr(s, -EIO, "ebpf: cannot read the kernel's BTF %s: %s; "
					 "use --source tracefs", path, why);
	}
	bpf_object__for_each_program(prog, e->skel->obj) {
		const char *sec = bpf_program__section_name(prog), *tp;
		char name[128];

		bool phase = !strncmp(bpf_program__name(prog), "vxt_ph_", 7);

		tp = sec && !strncmp(sec, "tp_btf/", 7) ? sec + 7 : NULL;
		if (!tp)
			continue;
		if (phase && !phases) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		snprintf(name, sizeof(name), "btf_trace_%s", tp);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0 && phase) {
			size_t len = strlen(e->missing);

			bpf_program__set_autoload(prog, false);
			snprintf(e->missing + len, sizeof(e->missing) - len, "%s%s",
				 len ? ", " : "", tp);
		} else if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0) {
			rc = vxt_source_seterr(s, -ENOENT, "ebpf: the kernel has no %s tracepoint "
					       "(no %s in %s); use --source tracefs", tp, name,
					       path);
			break;
		}
	}
	btf__free(btf);
	return rc;
}

/* The kernel speculation's windows for profile @k, sized as the module
 * sizes its buffers (kmod_spec.c): *keys windows (the profile's nspec, no
 * more than the objects traced when keyed by object) of *window records
 * (specsize over the VXT_BPF_SPEC_EVENT bytes the profile counts an
 * event), nspec x specsize at most VXT_BPF_SPEC_MAX_BYTES (a record
 * takes 72 bytes in spec_records and 8 in spec_times, so at most 92 MiB of
 * kernel memory).
 * @return false, with why in s->kspec_why, when they do not fit. */
bool vxt_ebpf_spec_fits(struct vxt_source *s, struct ebpf *e, const struct vxt_kspec *k,
			bool all, uint32_t *keys, uint32_t *window)
{
	union voliot_want_set sets[VXT_BPF_MAX_DEVS];
	uint32_t n = all ? 1 : e->skel->rodata->want_n, i, nspec, size;

	memset(sets, 0, sizeof(sets));
	for (i = 0; i < n; i++)
		sets[i].type = all ? VOLIOT_WANT_ALL : VOLIOT_WANT_DEV;
	if (vxt_kmod_spec_size(k, sets, (int)n, &nspec, &size, s->kspec_why,
			       sizeof(s->kspec_why)) < 0)
		return false;
	if (!nspec)
		nspec = 1;
	if ((uint64_t)nspec * size > VXT_BPF_SPEC_MAX_BYTES || nspec > VXT_BPF_MAX_KEYS) {
		snprintf(s->kspec_why, sizeof(s->kspec_why), "its %u window%s%s x %u bytes = %llu "
			 "bytes do not fit the ebpf source's %llu MiB", nspec, nspec == 1 ? "" : "s",
			 k->key == VXT_BPF_KEY_OBJECT && nspec < k->nspec ? " (one per object)" : "",
			 size, (unsigned long long)nspec * size, VXT_BPF_SPEC_MAX_BYTES >> 20);
		return false;
	}
	*keys = nspec;
	*window = size / VXT_BPF_SPEC_EVENT ? size / VXT_BPF_SPEC_EVENT : 1;
	if (k->before_events > *window) {
		snprintf(s->kspec_why, sizeof(s->kspec_why), "its %u events before a trigger "
			 "are more than a window holds (specsize %u / %d bytes = %u)",
			 k->before_events, size, VXT_BPF_SPEC_EVENT, *window);
		return false;
	}
	return true;
}

void vxt_ebpf_libbpf_quiet(void)
{
	libbpf_why[0] = '\0';
	libbpf_set_print(quiet_print);
}

/* As root, EACCES is the verifier's refusal (EPERM: lockdown); so is EINVAL
 * after a warning about a program (a relocation the kernel's types do not
 * allow makes an instruction it refuses), and E2BIG after one (a program
 * too complex for its verifier). */
int vxt_ebpf_load_error(struct vxt_source *s, int rc)
{
	if ((rc == -EACCES && geteuid() == 0) ||
	    ((rc == -EINVAL || rc == -E2BIG) && libbpf_why[0]))
		return vxt_source_seterr(s, -EACCES, "ebpf: the kernel's verifier refused the BPF "
					 "programs%s%s%s; use --source tracefs",
					 libbpf_why[0] ? " (" : "", libbpf_why,
					 libbpf_why[0] ? ")" : "");
	if (rc == -EPERM || rc == -EACCES)
		return vxt_source_seterr(s, rc, "ebpf: no permission to load BPF programs "
					 "(needs root or CAP_BPF+CAP_PERFMON; lockdown?); "
					 "use --source tracefs");
	return vxt_source_seterr(s, rc, "ebpf: the kernel refused the BPF programs (%s); "
				 "use --source tracefs", strerror(-rc));
}

#endif /* VXT_HAVE_EBPF */
