/* test_tracefs_route.c - where the tracefs source puts a phase event
 * (tracefs_phases.c): a block_bio_remap onto a bio-based device (a dm-linear
 * over a dm-linear) lands on that device's object and names the device it
 * came from; onto a blk-mq device it lands on the request-level route; onto
 * a device with no route it is dropped.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <vxtrace/objtab.h>
#include <vxtrace/strtab.h>

#include "source/source_impl.h"
#include "source/tracefs_impl.h"

#define DM_TOP 0xfd00001u	/* 253:1 */
#define DM_MID 0xfd00000u	/* 253:0 */
#define LOOP   0x0700000u	/* 7:0 */

static struct vxt_source *src;
static struct tfs *tfs;
static struct vxt_batch batch;
static int64_t o_top, o_mid, o_loop;

static void setup(void)
{
	setenv("VXT_SYSFS", "/nonexistent", 1);	/* objects named MAJ:MIN */
	src = calloc(1, sizeof(*src));
	tfs = calloc(1, sizeof(*tfs));
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(tfs);
	src->objs = vxt_objtab_new();
	src->strs = vxt_strtab_new();
	tfs->phases = true;
	o_top = vxt_objtab_add(src->objs, DM_TOP, "dm-1", 0, 0);
	o_mid = vxt_objtab_add(src->objs, DM_MID, "dm-0", 0, 0);
	o_loop = vxt_objtab_add(src->objs, LOOP, "loop0", 0, 0);
	ck_assert_int_eq(vxt_tfs_add_route(src, tfs, DM_TOP, 0, UINT64_MAX, (uint32_t)o_top, true), 0);
	ck_assert_int_eq(vxt_tfs_add_route(src, tfs, DM_MID, 0, UINT64_MAX, (uint32_t)o_mid, true), 0);
	ck_assert_int_eq(vxt_tfs_add_route(src, tfs, LOOP, 0, UINT64_MAX, (uint32_t)o_loop, false), 0);
	memset(&batch, 0, sizeof(batch));
}

static void teardown(void)
{
	vxt_batch_free(&batch);
	vxt_objtab_free(src->objs);
	vxt_strtab_free(src->strs);
	free(tfs);
	free(src);
}

static struct tfs_raw remap(uint32_t to, uint64_t sector, uint32_t from, uint64_t from_sector)
{
	struct tfs_raw r = { .ts = 1000, .sector = sector, .dev = to, .nr_sector = 8,
			     .bytes = 4096, .pid = 1, .old_dev = from, .old_sector = from_sector,
			     .kind = K_REMAP };

	strcpy(r.rwbs, "W");
	return r;
}

START_TEST(test_remap_onto_bio_device)
{
	struct tfs_raw r = remap(DM_MID, 2048, DM_TOP, 0);

	ck_assert_int_eq(vxt_tfs_emit_phase(src, tfs, &r, &batch), 1);
	ck_assert_uint_eq(batch.n, 1);
	ck_assert_uint_eq(batch.ev[0].object, (uint32_t)o_mid);
	ck_assert_uint_eq(batch.ev[0].phase, VXT_PH_REMAP);
	ck_assert_uint_eq(batch.ev[0].sector, 2048);
	ck_assert_uint_eq(batch.ev[0].remap_from, vxt_remap_from_pack((uint32_t)o_top, 0));
}
END_TEST

START_TEST(test_both_remaps_of_a_stack)
{
	struct tfs_raw a = remap(DM_MID, 2048, DM_TOP, 0);
	struct tfs_raw b = remap(LOOP, 4096, DM_MID, 2048);

	ck_assert_int_eq(vxt_tfs_emit_phase(src, tfs, &a, &batch), 1);
	ck_assert_int_eq(vxt_tfs_emit_phase(src, tfs, &b, &batch), 1);
	ck_assert_uint_eq(batch.n, 2);
	ck_assert_uint_eq(batch.ev[0].object, (uint32_t)o_mid);
	ck_assert_uint_eq(batch.ev[1].object, (uint32_t)o_loop);
	ck_assert_uint_eq(batch.ev[1].remap_from, vxt_remap_from_pack((uint32_t)o_mid, 2048));
}
END_TEST

START_TEST(test_remap_onto_unselected_device)
{
	struct tfs_raw r = remap(0x0800000u, 0, LOOP, 0);	/* 8:0, no route */

	ck_assert_int_eq(vxt_tfs_emit_phase(src, tfs, &r, &batch), 1);
	ck_assert_uint_eq(batch.n, 0);
}
END_TEST

Suite *tracefs_route_suite(void)
{
	Suite *s = suite_create("tracefs_route");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_remap_onto_bio_device);
	tcase_add_test(tc, test_both_remaps_of_a_stack);
	tcase_add_test(tc, test_remap_onto_unselected_device);
	suite_add_tcase(s, tc);
	return s;
}
