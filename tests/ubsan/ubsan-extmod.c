// SPDX-License-Identifier: GPL-2.0
/*
 * Silencing the UBSAN reports of a module built outside the kernel tree
 * (patch 0033, debugfs ubsan/suppress), as a distribution's user does
 * for OpenZFS, sysdig or a GPU driver: by the module's name, before it is
 * loaded ("module:NAME"), by a function ("function:NAME", KCSAN's way),
 * or by its file, whose path in the reports is wherever the module was
 * built (the kernel records the path it was compiled from).
 *
 * The module is tests/ubsan/extmod/ubsan_extmod.c, built with
 * make -C <tree> O=<the test kernel's build> M=<dir> modules, in the
 * guest's /lib/modules/ubsan_extmod.ko: writing N to its parameters fail
 * and fail_other fails a bounds check N times in ubsan_extmod_fail() or
 * ubsan_extmod_fail_other() (a site each), fail_at_load=1 once from its
 * init.
 *
 * report=all, so that every failure that is not suppressed prints: a
 * suppression is what keeps the console quiet. Cases that expect reports
 * announce them to the boot verdict first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "ubsan.h"

#define EXTMOD		"ubsan_extmod"
#define EXTMOD_KO	"/lib/modules/" EXTMOD ".ko"
#define EXTMOD_PARAMS	"/sys/module/" EXTMOD "/parameters/"
#define EXTMOD_FILE	EXTMOD ".c:"
#define REPORT		"UBSAN: array-index-out-of-bounds in "
#define LOG_SIZE	(64 * 1024)

/* Write @val to @path; returns 0 or the errno of the write. */
static int put(const char *path, const char *val)
{
	return -guest_write_file(path, val);
}

static int load(const char *params)
{
	int fd = open(EXTMOD_KO, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
	close(fd);
	return ret;
}

static int unload(void)
{
	return syscall(SYS_delete_module, EXTMOD, O_NONBLOCK) ? errno : 0;
}

/* Fail the check in @fn ("fail" or "fail_other") @n times. */
static int fail(const char *fn, int n)
{
	char path[128], val[16];

	snprintf(path, sizeof(path), EXTMOD_PARAMS "%s", fn);
	snprintf(val, sizeof(val), "%d", n);
	return put(path, val);
}

FIXTURE(extmod) {
	int kmsg;
	char *log;
};

FIXTURE_SETUP(extmod)
{
	self->kmsg = -1;
	self->log = NULL;
	if (access(UBSAN_DEBUGFS "suppress", W_OK))
		SKIP(return, "needs debugfs ubsan/ (%s)", strerror(errno));
	if (access("/proc/modules", F_OK))
		SKIP(return, "a kernel without modules");
	ASSERT_EQ(0, access(EXTMOD_KO, R_OK))
		TH_LOG(EXTMOD_KO ": %s (built outside the tree from tests/ubsan/extmod)",
		       strerror(errno));
	unload();
	ASSERT_EQ(0, put(UBSAN_PARAMS "checks", "all"));
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	self->log = calloc(1, LOG_SIZE);
	ASSERT_NE(NULL, self->log);
	self->kmsg = guest_kmsg_open();
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(-self->kmsg));
}

FIXTURE_TEARDOWN(extmod)
{
	unload();
	put(UBSAN_DEBUGFS "suppress", "!module:" EXTMOD);
	put(UBSAN_DEBUGFS "suppress", "!function:ubsan_extmod_fail");
	put(UBSAN_DEBUGFS "suppress", "!" EXTMOD ".c");
	put(UBSAN_PARAMS "report", "once");
	put(UBSAN_DEBUGFS "reset", "1");
	if (self->kmsg >= 0)
		close(self->kmsg);
	free(self->log);
}

/* The reports of the module printed since the last call. */
static int reports(FIXTURE_DATA(extmod) *self)
{
	self->log[0] = '\0';
	guest_kmsg_read(self->kmsg, self->log, LOG_SIZE);
	return ubsan_count_lines(self->log, REPORT, EXTMOD_FILE);
}

TEST_F(extmod, the_module_name_silences_it_from_its_load_on)
{
	struct ubsan_stats st;
	char buf[1024];

	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "module:" EXTMOD));
	ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "module:" EXTMOD "\n")) TH_LOG("%s", buf);

	/* before the module exists: its init's failure is silent too */
	ASSERT_EQ(0, load("fail_at_load=1"));
	ASSERT_EQ(0, fail("fail", 2));
	ASSERT_EQ(0, fail("fail_other", 1));
	EXPECT_EQ(0, reports(self));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(4, st.counted);
	EXPECT_EQ(4, st.suppressed);
	EXPECT_EQ(0, st.reported);
	/* sites lists them all the same */
	ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "sites", buf, sizeof(buf)));
	EXPECT_EQ(2, ubsan_count_lines(buf, "bounds ", EXTMOD_FILE)) TH_LOG("%s", buf);

	/* and again when it comes back */
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load("fail_at_load=1"));
	EXPECT_EQ(0, reports(self));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(5, st.suppressed);
	EXPECT_EQ(0, st.reported);
}

/*
 * A check that ends its function: where the handler's call is a tail call
 * (GCC's, in ubsan_extmod_fail_last.cold), the handler returns to that
 * function's caller, kernel code here, and the module must still be found,
 * from the site, for this failure and every one after it. A report would
 * be a splat that nothing announced: the boot fails on it too.
 */
TEST_F(extmod, the_module_name_silences_a_check_that_ends_a_function)
{
	struct ubsan_stats st;

	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "module:" EXTMOD));
	ASSERT_EQ(0, load(""));
	ASSERT_EQ(0, fail("fail_last", 3));
	reports(self);
	EXPECT_EQ(0, ubsan_count_lines(self->log, "UBSAN: ", EXTMOD_FILE))
		TH_LOG("%s", self->log);
	ASSERT_EQ(0, ubsan_read_stats("divide", &st));
	EXPECT_EQ(3, st.counted);
	EXPECT_EQ(3, st.suppressed);
	EXPECT_EQ(0, st.reported);
}

TEST_F(extmod, a_function_silences_that_function_only)
{
	struct ubsan_stats st;
	char buf[1024];

	ASSERT_EQ(0, load(""));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "function:ubsan_extmod_fail"));
	ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "function:ubsan_extmod_fail\n"))
		TH_LOG("%s", buf);
	ASSERT_EQ(0, guest_expect_splat(self->kmsg, EXTMOD_FILE));
	ASSERT_EQ(0, fail("fail", 2));
	ASSERT_EQ(0, fail("fail_other", 1));
	EXPECT_EQ(1, reports(self));
	EXPECT_EQ(1, ubsan_count_lines(self->log, REPORT, EXTMOD_FILE));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(3, st.counted);
	EXPECT_EQ(2, st.suppressed);
	EXPECT_EQ(1, st.reported);

	/* the function is found again when its module comes back */
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load(""));
	ASSERT_EQ(0, fail("fail", 1));
	EXPECT_EQ(0, reports(self));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(3, st.suppressed);
}

TEST_F(extmod, the_file_silences_it_wherever_it_was_built)
{
	struct ubsan_stats st;
	char buf[1024], *p, *end;

	ASSERT_EQ(0, load(""));
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "count"));
	ASSERT_EQ(0, fail("fail", 1));
	ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "sites", buf, sizeof(buf)));
	p = strstr(buf, EXTMOD_FILE);
	ASSERT_NE(NULL, p) TH_LOG("sites: %s", buf);
	end = p;
	while (p > buf && p[-1] != ' ')
		p--;
	*end = '\0';
	TH_LOG("built in %s", p);

	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", EXTMOD ".c"));
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	ASSERT_EQ(0, fail("fail", 2));
	ASSERT_EQ(0, fail("fail_other", 1));
	EXPECT_EQ(0, reports(self));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(3, st.suppressed);
	EXPECT_EQ(0, st.reported);
}

TEST_F(extmod, it_reports_when_nothing_silences_it)
{
	struct ubsan_stats st;

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "once"));
	/* the defaults again: it counts because a reset asks it to */
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	ASSERT_EQ(0, load(""));
	ASSERT_EQ(0, guest_expect_splat(self->kmsg, EXTMOD_FILE));
	ASSERT_EQ(0, fail("fail", 3));
	EXPECT_EQ(1, reports(self));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(3, st.counted);
	EXPECT_EQ(1, st.reported);
	EXPECT_EQ(0, st.suppressed);
}

TEST_F(extmod, bad_suppressions_are_refused)
{
	ASSERT_EQ(0, load(""));
	EXPECT_EQ(ENOENT, put(UBSAN_DEBUGFS "suppress",
			      "function:ubsan_extmod_no_such_function"));
	EXPECT_EQ(EINVAL, put(UBSAN_DEBUGFS "suppress", "function:"));
	EXPECT_EQ(EINVAL, put(UBSAN_DEBUGFS "suppress", "module:"));
	/* MODULE_NAME_LEN is 64 - sizeof(long): 60 on 32-bit, 56 on 64-bit */
	EXPECT_EQ(EINVAL, put(UBSAN_DEBUGFS "suppress",
			      "module:a_module_name_longer_than_any_module_name_can_be_on_any_architecture"));
	EXPECT_EQ(ENOENT, put(UBSAN_DEBUGFS "suppress", "!module:" EXTMOD));
}

TEST_HARNESS_MAIN
