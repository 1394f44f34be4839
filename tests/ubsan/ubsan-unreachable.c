// SPDX-License-Identifier: GPL-2.0
/*
 * ubsan.checks= on the kernel command line, and the unreachable class, in
 * a boot of its own: tests/boots gives it "cmdline=ubsan.checks=-bounds"
 * and "expect-panic=__builtin_unreachable", and the verdict checks that the
 * boot ends in the panic "can't return from __builtin_unreachable()".
 *
 * The boot parameter must have taken: the module parameter lists every
 * class but bounds, a bounds failure (LKDTM UBSAN_BOUNDS) neither prints
 * nor counts, and a shift failure still reports. Last, LKDTM
 * UBSAN_UNREACHABLE reaches __builtin_unreachable(): UBSAN reports it and
 * panics, as it must whatever the parameters say. If the write returns,
 * the kernel went on past __builtin_unreachable(): the test fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "lkdtm/lkdtm.h"
#include "ubsan.h"

#define LOG_SIZE	(64 * 1024)

/* patch 0032's classes in their order, without bounds */
#define ALL_BUT_BOUNDS	"shift,divide,overflow,negate,null,alignment," \
			"object-size,bool,enum,unreachable,alignment-assumption\n"

TEST(checks_from_the_command_line_then_unreachable_panics)
{
	char buf[512], *log = calloc(1, LOG_SIZE);
	struct ubsan_stats st;
	int kmsg, err;

	ASSERT_NE(NULL, log);
	ASSERT_EQ(0, guest_read_file("/proc/cmdline", buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "ubsan.checks=-bounds"))
		TH_LOG("not booted with ubsan.checks=-bounds: %s", buf);
	ASSERT_EQ(0, guest_read_file(UBSAN_PARAMS "checks", buf, sizeof(buf)));
	ASSERT_STREQ(ALL_BUT_BOUNDS, buf);
	ASSERT_EQ(0, guest_read_file(UBSAN_PARAMS "report", buf, sizeof(buf)));
	ASSERT_STREQ("once\n", buf);

	kmsg = guest_kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(-kmsg));
	ASSERT_EQ(0, lkdtm_provoke("UBSAN_BOUNDS"));
	ASSERT_EQ(0, lkdtm_provoke("UBSAN_BOUNDS"));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(0, st.counted);

	/* the path in a report is the source's, absolute with O= builds */
	ASSERT_EQ(0, guest_expect_splat(kmsg, UBSAN_LKDTM_FILE ":"));
	ASSERT_EQ(0, lkdtm_provoke("UBSAN_SHIFT"));
	guest_kmsg_read(kmsg, log, LOG_SIZE);
	EXPECT_EQ(NULL, strstr(log, "UBSAN: array-index-out-of-bounds"));
	EXPECT_NE(NULL, strstr(log, "UBSAN: shift-out-of-bounds in "))
		TH_LOG("no shift report: %.2000s", log);

	ASSERT_EQ(0, guest_expect_splat(kmsg, UBSAN_LKDTM_FILE ":"));
	/* does not return: the kernel panics in this write */
	err = lkdtm_provoke("UBSAN_UNREACHABLE");
	TH_LOG("UBSAN_UNREACHABLE returned (%s): the kernel did not panic",
	       strerror(-err));
	ASSERT_TRUE(0);
}

TEST_HARNESS_MAIN
