// SPDX-License-Identifier: GPL-2.0
/*
 * ubsan.report=panic (patch 0032), in a boot of its own: tests/boots gives
 * it "cmdline=ubsan.report=panic" and "expect-panic=ubsan.report=panic",
 * and the verdict (--expect-panic) checks that the boot ends in the panic
 * "UBSAN: panic because of ubsan.report=panic" after the report.
 *
 * The program checks that the boot parameter took (the module parameter
 * reads "panic") and that panic_on_warn is off, so that it is the
 * parameter that panics, then provokes one failed check (LKDTM
 * ARRAY_BOUNDS, one array-index-out-of-bounds). If the write returns, the
 * kernel survived its first report: the test fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "lkdtm/lkdtm.h"
#include "ubsan.h"

#define REPORT	UBSAN_PARAMS "report"

TEST(report_panic_panics_at_the_first_report)
{
	char buf[64];
	int fd, kmsg, ret;

	ASSERT_EQ(0, guest_read_file(REPORT, buf, sizeof(buf)));
	ASSERT_STREQ("panic\n", buf);
	ASSERT_EQ(0, guest_read_file("/proc/sys/kernel/panic_on_warn", buf,
				     sizeof(buf)));
	ASSERT_STREQ("0\n", buf);

	kmsg = guest_kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(-kmsg));
	fd = lkdtm_open();
	ASSERT_LE(0, fd) TH_LOG(LKDTM_DIRECT ": %s", strerror(-fd));
	ASSERT_EQ(0, guest_expect_splat(kmsg, "array-index-out-of-bounds in"));
	/* does not return: the kernel panics in this write */
	ret = lkdtm_provoke_fd(fd, "ARRAY_BOUNDS");
	TH_LOG("ARRAY_BOUNDS returned (%s): the kernel did not panic",
	       strerror(-ret));
	ASSERT_TRUE(0);
}

TEST_HARNESS_MAIN
