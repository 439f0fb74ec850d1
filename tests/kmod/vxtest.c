/* vxtest.c - the runner: one subcommand a run, one VXT-RESULT line */
#include "vxtest.h"

const char *test_name = "?";

int result(int ok, const char *fmt, ...)
{
	static const char *const verdict[] = { "FAIL", "PASS", "SKIP" };
	va_list ap;

	printf("VXT-RESULT %s %s: ", verdict[ok], test_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: vxtest TEST [ARGS]\n");
		return 2;
	}
	test_name = argv[1];
	if (!strcmp(argv[1], "exact") && argc == 4)
		return t_exact(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "badblocks") && argc == 4)
		return t_badblocks(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "dmerror") && argc == 3)
		return t_dmerror(argv[2]);
	if (!strcmp(argv[1], "eagain") && argc == 3)
		return t_eagain(argv[2]);
	if (!strcmp(argv[1], "clock") && argc == 3)
		return t_clock(argv[2]);
	if (!strcmp(argv[1], "smallbuf") && argc == 3)
		return t_smallbuf(argv[2]);
	if (!strcmp(argv[1], "lost") && argc == 4)
		return t_lost(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "multi") && argc == 4)
		return t_multi(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "errchan") && argc == 5)
		return t_errchan(argv[2], strtoull(argv[3], NULL, 0),
				 strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "stacked") && argc == 5)
		return t_stacked(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "ops") && argc == 3)
		return t_ops(argv[2]);
	if (!strcmp(argv[1], "errlost") && argc == 5)
		return t_errlost(argv[2], strtoull(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "ioctls") && argc == 3)
		return t_ioctls(argv[2]);
	if (!strcmp(argv[1], "phases") && argc == 5)
		return t_phases(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (!strcmp(argv[1], "partition") && argc == 5)
		return t_partition(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	if (!strcmp(argv[1], "mbr") && argc == 5)
		return make_mbr(argv[2], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "requeue") && argc == 4)
		return t_requeue(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "eperm"))
		return t_eperm();
	if (!strcmp(argv[1], "hold"))
		return t_hold();
	if (!strcmp(argv[1], "stress") && argc == 5)
		return t_stress(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if (!strcmp(argv[1], "errshare") && argc == 4)
		return t_errshare(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "spec_ctx") && argc == 4)
		return t_spec_ctx(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "spec_time") && argc == 4)
		return t_spec_time(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "spec_req") && argc == 4)
		return t_spec_req(argv[2], argv[3]);
	if (!strcmp(argv[1], "spec_foreign") && argc == 4)
		return t_spec_foreign(argv[2], argv[3]);
	if (!strcmp(argv[1], "spec_bad") && argc == 3)
		return t_spec_bad(argv[2]);
	if (!strcmp(argv[1], "spec_safety") && argc == 4)
		return t_spec_safety(argv[2], strtoull(argv[3], NULL, 0));
	if (!strcmp(argv[1], "dm-create") && argc >= 5)
		return dm_create(argv[2], strtoull(argv[3], NULL, 0), argv[4],
				 argc > 5 ? argv[5] : NULL);
	if (!strcmp(argv[1], "md-create") && argc >= 6)
		return md_create(argv[2], atoi(argv[3]), argv + 4, argc - 4);
	if (!strcmp(argv[1], "trace-count") && argc >= 3)
		return trace_count(argv[2], argc > 3 ? strtoul(argv[3], NULL, 0) : 0);
	fprintf(stderr, "vxtest: unknown test or wrong arguments: %s\n", argv[1]);
	return 2;
}
