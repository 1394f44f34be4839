// SPDX-License-Identifier: GPL-2.0
/*
 * User-access protection stays on outside user access windows: the kernel
 * must not be able to dereference a user pointer directly (SMAP on x86,
 * SUM clear on riscv, PAN or domains on ARM), neither before any window
 * (LKDTM ACCESS_USERSPACE) nor right after one was closed, whether it
 * ended in a fault that unsafe_get_user() took to its label
 * (ACCESS_USERSPACE_AFTER_FAULT) or normally (ACCESS_USERSPACE_AFTER_WINDOW).
 * A missing user_access_end() makes the dereference succeed and LKDTM
 * print "FAIL: survived bad read": the test fails.
 *
 * Each case forks a child that writes the crash type to LKDTM's DIRECT
 * file; the Oops must kill it, and /dev/kmsg, read from just before the
 * write, must show "attempting bad read" and no "lkdtm: FAIL". Before the
 * write the test announces the Oops to the boot verdict with the line
 * "harness: expect splat: lkdtm_TYPE" in the kernel log: the verdict
 * accepts the next splat if its lines name that function, and fails the
 * boot if it does not come.
 *
 * ACCESS_USERSPACE_AFTER_FAULT also reads the mapped page inside the
 * window after the fault was fixed up: the window must still be open there.
 *
 * The UACCESS_* types do not crash: LKDTM reads the user access state an
 * interrupt taken inside a window sees in its handler (and the window's
 * after the interrupt returned), the state of every CPU's idle task, of a
 * kthread switched in over a window without an exception (and the
 * window's after its task ran again), and the state inside a window
 * around user_access_save() and user_access_restore(), and prints "lkdtm:
 * OK: ..." or "lkdtm: FAIL: ..." (XFAIL where it cannot read the state).
 * On the architectures this project's series gives windows (riscv64, arm)
 * and on x86_64 (SMAP) an XFAIL fails the case: a test that does not
 * look is no pass. The one XFAIL expected there is x86's for a switch
 * inside a window (objtool allows no call in one); elsewhere it is a
 * skip. They run first, before the Oopses.
 *
 * Put this suite last in a boot's suite list: after an Oops the kernel is
 * tainted and lockdep switches itself off, so suites after it run without
 * lock checking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "lkdtm/lkdtm.h"

#define LOG_SIZE	(256 * 1024)

/*
 * Provoke LKDTM crash @type in a child; returns the child's wait status
 * and leaves the kernel's messages since just before the write in @log.
 */
static int provoke(struct __test_metadata *_metadata, const char *type,
		   char *log, size_t size)
{
	char expect[128];
	int kmsg, status;
	pid_t pid;

	if (!lkdtm_available())
		SKIP(return -1, "no LKDTM (%s: %s)", LKDTM_DIRECT, strerror(errno));
	kmsg = guest_kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(-kmsg));
	snprintf(expect, sizeof(expect), "lkdtm_%s", type);
	ASSERT_EQ(0, guest_expect_splat(kmsg, expect));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (lkdtm_provoke(type))
			_exit(2);
		_exit(0);	/* survived */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	log[0] = '\0';
	guest_kmsg_read(kmsg, log, size);
	close(kmsg);
	return status;
}

static void expect_caught(struct __test_metadata *_metadata, const char *type)
{
	char *log = calloc(1, LOG_SIZE);
	int status;

	ASSERT_NE(NULL, log);
	status = provoke(_metadata, type, log, LOG_SIZE);
	if (status == -1) {
		free(log);
		return;
	}
	EXPECT_TRUE(WIFSIGNALED(status))
		TH_LOG("%s: the child was not killed (exit status %d)", type,
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_NE(NULL, strstr(log, "attempting bad read"))
		TH_LOG("%s: no \"attempting bad read\" in the kernel log", type);
	EXPECT_EQ(NULL, strstr(log, "lkdtm: FAIL"))
		TH_LOG("%s: LKDTM says: %.200s", type, strstr(log, "lkdtm: FAIL"));
	EXPECT_EQ(NULL, strstr(log, "FAIL: survived"));
	free(log);
}

/* The one XFAIL where LKDTM reads the state: x86 has no switch in a window */
#define X86_NO_SWITCH	"lkdtm: XFAIL: no schedule() inside a user access window on x86"

/*
 * Whether LKDTM reads the user access state here: riscv64 (sstatus.SUM),
 * arm (DACR or TTBCR) and x86_64, whose QEMU CPU has SMAP.
 */
static int state_readable(void)
{
	struct utsname u;

	if (uname(&u))
		return 0;
	return !strcmp(u.machine, "riscv64") || !strncmp(u.machine, "armv", 4) ||
	       !strcmp(u.machine, "x86_64");
}

/*
 * Trigger LKDTM type @type, which reports instead of crashing: pass on its
 * "OK:" line, fail on any "FAIL" line, skip on "XFAIL:" where LKDTM cannot
 * read the state (state_readable()), fail on it where it can.
 */
static void expect_ok(struct __test_metadata *_metadata, const char *type)
{
	char *log = calloc(1, LOG_SIZE);
	const char *fail, *xfail;
	int kmsg, ret;

	ASSERT_NE(NULL, log);
	if (!lkdtm_available()) {
		free(log);
		SKIP(return, "no LKDTM (%s: %s)", LKDTM_DIRECT, strerror(errno));
	}
	kmsg = guest_kmsg_open();
	ASSERT_LE(0, kmsg) TH_LOG("/dev/kmsg: %s", strerror(-kmsg));
	ret = lkdtm_provoke(type);
	EXPECT_EQ(0, ret) TH_LOG("%s: %s", type, strerror(-ret));
	guest_kmsg_read(kmsg, log, LOG_SIZE);
	close(kmsg);

	xfail = strstr(log, "lkdtm: XFAIL: ");
	if (xfail && (!state_readable() || !strncmp(xfail, X86_NO_SWITCH,
						    strlen(X86_NO_SWITCH)))) {
		char why[160];

		snprintf(why, sizeof(why), "%.*s", (int)strcspn(xfail, "\n"),
			 xfail);
		free(log);
		SKIP(return, "%s", why);
	}
	EXPECT_EQ(NULL, xfail)
		TH_LOG("%s: %.*s, on a machine whose state LKDTM reads", type,
		       (int)strcspn(xfail, "\n"), xfail);
	fail = strstr(log, "lkdtm: FAIL");
	EXPECT_EQ(NULL, fail)
		TH_LOG("%s: %.*s", type, (int)strcspn(fail, "\n"), fail);
	EXPECT_NE(NULL, strstr(log, "lkdtm: OK: "))
		TH_LOG("%s: no \"lkdtm: OK:\" in the kernel log", type);
	free(log);
}

TEST(interrupt_inside_window_runs_with_user_access_closed)
{
	expect_ok(_metadata, "UACCESS_IRQ_IN_WINDOW");
}

TEST(idle_tasks_run_with_user_access_closed)
{
	expect_ok(_metadata, "UACCESS_IDLE");
}

TEST(task_switched_out_in_window_keeps_it_and_next_task_runs_closed)
{
	expect_ok(_metadata, "UACCESS_SWITCH_IN_WINDOW");
}

TEST(user_access_save_closes_and_restore_reopens)
{
	expect_ok(_metadata, "UACCESS_SAVE_RESTORE");
}

TEST(user_access_before_any_window_is_caught)
{
	expect_caught(_metadata, "ACCESS_USERSPACE");
}

TEST(user_access_after_faulting_unsafe_get_user_is_caught)
{
	expect_caught(_metadata, "ACCESS_USERSPACE_AFTER_FAULT");
}

TEST(user_access_after_closed_window_is_caught)
{
	expect_caught(_metadata, "ACCESS_USERSPACE_AFTER_WINDOW");
}

TEST_HARNESS_MAIN
