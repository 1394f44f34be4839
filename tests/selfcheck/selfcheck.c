// SPDX-License-Identifier: GPL-2.0
/*
 * Negative controls, built only with SELFCHECK=1: a test that fails and a
 * kernel splat provoked through LKDTM. The verdict must report both; a run
 * with this suite that ends green means the verdict cannot fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lkdtm/lkdtm.h"

TEST(deliberately_fails)
{
	EXPECT_EQ(1, 2) TH_LOG("this failure is the negative control");
}

TEST(lkdtm_warning_splats)
{
	int ret;

	if (!lkdtm_available())
		SKIP(return, "no LKDTM in this kernel");
	ret = lkdtm_provoke("WARNING");
	ASSERT_EQ(0, ret) TH_LOG("write: %s", strerror(-ret));
}

TEST_HARNESS_MAIN
