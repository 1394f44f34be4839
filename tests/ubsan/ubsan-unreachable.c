// SPDX-License-Identifier: GPL-2.0
/*
 * ubsan.checks= on the kernel command line, and the unreachable class, in
 * a boot of its own: tests/boots gives it "cmdline=ubsan.checks=-bounds"
 * (arm) or "cmdline=ubsan.checks=-unreachable" (riscv64), and
 * "expect-panic=__builtin_unreachable": the verdict checks that the boot
 * ends in the panic "can't return from __builtin_unreachable()".
 *
 * The boot parameter must have taken: the module parameter lists every
 * class but that one, a bounds failure (LKDTM UBSAN_BOUNDS) neither prints
 * nor counts when bounds is off, and a shift failure still reports. Last, LKDTM
 * UBSAN_UNREACHABLE reaches __builtin_unreachable(): UBSAN panics, as it
 * must whatever the parameters say, and reports it first only if the
 * class is on (with it off, a report is a splat nobody announced: the
 * verdict fails the boot). If the write returns, the kernel went on past
 * __builtin_unreachable(): the test fails.
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

/* patch 0032's classes in their order, without bounds or unreachable */
#define ALL_BUT_BOUNDS	"shift,divide,overflow,negate,null,alignment," \
			"object-size,bool,enum,unreachable,alignment-assumption\n"
#define ALL_BUT_UNREACHABLE \
			"shift,bounds,divide,overflow,negate,null,alignment," \
			"object-size,bool,enum,alignment-assumption\n"

TEST(checks_from_the_command_line_then_unreachable_panics)
{
	char buf[512], *log = calloc(1, LOG_SIZE);
	struct ubsan_stats st;
	bool bounds_off = guest_cmdline_has("ubsan.checks=-bounds");
	bool unreachable_off = guest_cmdline_has("ubsan.checks=-unreachable");
	int kmsg, err;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(bounds_off != unreachable_off)
		TH_LOG("not booted with one of ubsan.checks=-bounds and -unreachable");
	ASSERT_EQ(0, guest_read_file(UBSAN_PARAMS "checks", buf, sizeof(buf)));
	ASSERT_STREQ(bounds_off ? ALL_BUT_BOUNDS : ALL_BUT_UNREACHABLE, buf);
	ASSERT_EQ(0, guest_read_file(UBSAN_PARAMS "report", buf, sizeof(buf)));
	ASSERT_STREQ("once\n", buf);

	kmsg = guest_kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(-kmsg));
	if (bounds_off) {
		ASSERT_EQ(0, lkdtm_provoke("UBSAN_BOUNDS"));
		ASSERT_EQ(0, lkdtm_provoke("UBSAN_BOUNDS"));
		ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
		EXPECT_EQ(0, st.counted);
	}

	/* the path in a report is the source's, absolute with O= builds */
	ASSERT_EQ(0, guest_expect_splat(kmsg, UBSAN_LKDTM_FILE ":"));
	ASSERT_EQ(0, lkdtm_provoke("UBSAN_SHIFT"));
	guest_kmsg_read(kmsg, log, LOG_SIZE);
	EXPECT_EQ(NULL, strstr(log, "UBSAN: array-index-out-of-bounds"));
	EXPECT_NE(NULL, strstr(log, "UBSAN: shift-out-of-bounds in "))
		TH_LOG("no shift report: %.2000s", log);

	/* the class off: the panic, but no report */
	if (!unreachable_off)
		ASSERT_EQ(0, guest_expect_splat(kmsg, UBSAN_LKDTM_FILE ":"));
	/* does not return: the kernel panics in this write */
	err = lkdtm_provoke("UBSAN_UNREACHABLE");
	TH_LOG("UBSAN_UNREACHABLE returned (%s): the kernel did not panic",
	       strerror(-err));
	ASSERT_TRUE(0);
}

TEST_HARNESS_MAIN
