// SPDX-License-Identifier: GPL-2.0
/*
 * ubsan.report=count from the command line, and a check that fails during
 * the initcalls, in a boot of its own: tests/boots gives it
 * "cmdline=ubsan.report=count lkdtm.cpoint_name=DIRECT
 * lkdtm.cpoint_type=UBSAN_BOUNDS", so that LKDTM (built in) fails one
 * bounds check of drivers/misc/lkdtm/ubsan.c from its initcall, long
 * before user space and before the late initcalls.
 *
 * "count" prints nothing and counts: the failure must be in debugfs
 * ubsan/stats (bounds: counted 1, reported 0) and ubsan/sites, not lost
 * because the counters did not exist yet. Nothing may print: the boot
 * verdict fails the boot on any UBSAN report that no test announced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "lkdtm/lkdtm.h"
#include "ubsan.h"

#define CPOINT	"lkdtm.cpoint_type=UBSAN_BOUNDS"

TEST(a_failure_in_an_initcall_is_counted)
{
	char buf[8192];
	struct ubsan_stats st;

	ASSERT_EQ(0, guest_read_file("/proc/cmdline", buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "ubsan.report=count"))
		TH_LOG("not booted with ubsan.report=count: %s", buf);
	ASSERT_NE(NULL, strstr(buf, CPOINT))
		TH_LOG("not booted with " CPOINT ": %s", buf);
	if (access("/sys/module/lkdtm/parameters/cpoint_type", R_OK))
		SKIP(return, "LKDTM is not built in: nothing failed at boot (%s)",
		     strerror(errno));
	ASSERT_EQ(0, guest_read_file(UBSAN_PARAMS "report", buf, sizeof(buf)));
	ASSERT_STREQ("count\n", buf);

	ASSERT_EQ(0, ubsan_read_stats("bounds", &st))
		TH_LOG("no bounds row in " UBSAN_DEBUGFS "stats");
	EXPECT_EQ(1, st.counted)
		TH_LOG("the failure of LKDTM's initcall was not counted");
	EXPECT_EQ(0, st.reported);
	ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "sites", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, UBSAN_LKDTM_FILE ":"))
		TH_LOG("sites: %s", buf);
}

TEST_HARNESS_MAIN
