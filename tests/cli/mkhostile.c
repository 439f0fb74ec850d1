/* mkhostile.c - writes a trace whose names attack what prints them, for
 * cli/hostile_names.sh: terminal escapes (OSC title, OSC 52 clipboard, clear
 * screen and scrollback, C1 CSI), CSV row forgery (comma, quote, newline),
 * spreadsheet formulas, and bytes that are not UTF-8, in the host, the
 * command line, object names and command names.
 *   usage: mkhostile FILE
 * One read per object and command name, 1 ms apart from 1 s; every third
 * fails with EIO.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vxtrace/vxtrace.h"

static const char *const objects[] = {
	"sda",
	"\033[2J\033[3Jdisk",
	"sd,b\"x\nforged,row",
	"=HYPERLINK(\"http://x/\")",
	"bad\xff" "utf8",
	"c1\xc2\x9b" "31m",
};

static const char *const comms[] = {
	"\033]0;PWNED\a",
	"\033]52;c;SGVsbG8=\a",
	"=HYPERLINK(\"http://x/\",\"y\")",
	"+cmd|' /C calc'!A0",
	"-2+3",
	"@SUM(1)",
	"\tx",
	"two\nlines",
	"bad\xfe\xc3",
	"dd",
};

#define NOBJ (sizeof(objects) / sizeof(objects[0]))
#define NCOMM (sizeof(comms) / sizeof(comms[0]))

int main(int argc, char **argv)
{
	struct vxt_writer_opts o = { .force = true, .source = "test",
				     .host = "host\033]0;HOST\a",
				     .command = "vxrecord \033[31m-o x",
				     .anchor_mono_ns = 1000000000ull,
				     .anchor_real_ns = 1767225600000000000ull };
	char err[VXT_ERRBUF_SIZE];
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	int64_t comm_id[NCOMM];
	struct vxt_writer *w;
	struct vxt_event ev;
	unsigned n = 0;

	if (argc != 2 || !objs || !strs)
		return 2;
	for (size_t i = 0; i < NOBJ; i++)
		vxt_objtab_add(objs, (uint32_t)(8 << 20 | i * 16), objects[i], VXT_OBJ_DISK, 0);
	for (size_t i = 0; i < NCOMM; i++)
		comm_id[i] = vxt_strtab_intern(strs, comms[i], strlen(comms[i]));
	w = vxt_writer_open(argv[1], &o, objs, strs, err);
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (size_t i = 0; i < NOBJ; i++) {
		for (size_t k = 0; k < NCOMM; k++, n++) {
			memset(&ev, 0, sizeof(ev));
			ev.time_ns = 1000000000ull + n * 1000000ull;
			ev.phase = VXT_PH_DONE;
			ev.op = VXT_OP_READ;
			ev.object = (uint32_t)i;
			ev.sector = n * 8;
			ev.bytes = 4096;
			ev.latency_ns = 100000;
			ev.error = n % 3 == 0 ? -EIO : 0;
			ev.pid = 100 + n;
			ev.comm = (uint32_t)comm_id[k];
			if (vxt_writer_write(w, &ev, 1) < 0)
				return 1;
		}
	}
	if (vxt_writer_close(w, err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return 0;
}
