// SPDX-License-Identifier: GPL-2.0
/*
 * UBSAN's table of sites and a module that fails a check while it is
 * live and while it is being unloaded (patch 0033): the tree's
 * lib/test_ubsan_unload.c, whose timer fails a bounds check every jiffy
 * from module init on and whose async function, which the unload waits for
 * after the GOING notifiers ran, fails it once more, stops the timer and
 * logs "test_ubsan_unload: N checks failed while the module was live, M
 * while it was going".
 *
 * While the module is live its site is in debugfs ubsan/sites: the
 * failures that straddle the LIVE -> GOING change find it claimed, and the
 * notifier must make it a tombstone. The site's source location is in the
 * module's memory, freed when the unload returns. After it, ubsan/sites
 * must list nothing of the module (nothing at all: nothing else fails
 * meanwhile), reading it and writing ubsan/reset must not touch the freed
 * memory (KASAN, or a fault on the unmapped module memory, fails the
 * boot), and the failures stay counted: bounds "counted" is N + M, and
 * equals sites_unloaded, the failures at sites of unloaded modules.
 * Several load/unload rounds: a new module may be loaded where the old
 * one was.
 *
 * report=count, so nothing prints.
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

#define MODULE_KO	"/lib/modules/test_ubsan_unload.ko"
#define GOING_LINE	"test_ubsan_unload: "
#define LOG_SIZE	(64 * 1024)
#define ROUNDS		3

FIXTURE(unload) {
	int kmsg;
	char *log;
};

FIXTURE_SETUP(unload)
{
	self->kmsg = -1;
	self->log = NULL;
	if (access(UBSAN_DEBUGFS "reset", W_OK))
		SKIP(return, "needs debugfs ubsan/ (%s)", strerror(errno));
	if (access("/proc/modules", F_OK))
		SKIP(return, "a kernel without modules");
	ASSERT_EQ(0, access(MODULE_KO, R_OK))
		TH_LOG(MODULE_KO ": %s (CONFIG_TEST_UBSAN_UNLOAD=m)",
		       strerror(errno));
	ASSERT_EQ(0, guest_write_file(UBSAN_PARAMS "checks", "all"));
	ASSERT_EQ(0, guest_write_file(UBSAN_PARAMS "report", "count"));
	self->log = calloc(1, LOG_SIZE);
	ASSERT_NE(NULL, self->log);
	self->kmsg = guest_kmsg_open();
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(-self->kmsg));
}

FIXTURE_TEARDOWN(unload)
{
	syscall(SYS_delete_module, "test_ubsan_unload", O_NONBLOCK);
	guest_write_file(UBSAN_PARAMS "report", "once");
	guest_write_file(UBSAN_DEBUGFS "reset", "1");
	if (self->kmsg >= 0)
		close(self->kmsg);
	free(self->log);
}

/*
 * "N checks failed while the module was live, M while it was going": N and
 * M, or -1
 */
static void module_failures(const char *log, int *live, int *going)
{
	const char *p = strstr(log, GOING_LINE);

	if (!p || sscanf(p + strlen(GOING_LINE),
			 "%d checks failed while the module was live, %d while it was going",
			 live, going) != 2)
		*live = *going = -1;
}

static long stats_value(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	long v = -1;

	if (p && (p == buf || p[-1] == '\n'))
		sscanf(p + strlen(key), " %ld", &v);
	return v;
}

TEST_F(unload, sites_let_go_of_a_module_that_fails_checks_while_it_unloads)
{
	char sites[8192], stats[4096];
	struct ubsan_stats st;
	int round, fd, live, going;

	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, guest_write_file(UBSAN_DEBUGFS "reset", "1"));
		fd = open(MODULE_KO, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0))
			TH_LOG("finit_module: %s", strerror(errno));
		close(fd);
		/* its timer fails the check every jiffy meanwhile */
		usleep(100 * 1000);
		ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "sites", sites,
					     sizeof(sites)));
		EXPECT_NE(NULL, strstr(sites, "test_ubsan_unload.c:"))
			TH_LOG("round %d: the live module's site is not in sites: %s",
			       round, sites);
		ASSERT_EQ(0, syscall(SYS_delete_module, "test_ubsan_unload",
				     O_NONBLOCK))
			TH_LOG("delete_module: %s", strerror(errno));

		self->log[0] = '\0';
		guest_kmsg_read(self->kmsg, self->log, LOG_SIZE);
		module_failures(self->log, &live, &going);
		ASSERT_LT(0, live)
			TH_LOG("round %d: no check failed while the module was live: %s",
			       round, self->log);
		ASSERT_LT(0, going)
			TH_LOG("round %d: no check failed while the module was going: %s",
			       round, self->log);

		ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "sites", sites,
					     sizeof(sites)));
		EXPECT_STREQ("", sites)
			TH_LOG("round %d: sites after the unload", round);
		ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
		EXPECT_EQ(live + going, st.counted);
		ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "stats", stats,
					     sizeof(stats)));
		EXPECT_EQ(st.counted, stats_value(stats, "sites_unloaded"))
			TH_LOG("round %d: %s", round, stats);
		EXPECT_EQ(0, stats_value(stats, "sites_overflow"));
		/* the reset must not write into the freed module either */
		ASSERT_EQ(0, guest_write_file(UBSAN_DEBUGFS "reset", "1"));
		ASSERT_EQ(0, guest_read_file(UBSAN_DEBUGFS "sites", sites,
					     sizeof(sites)));
		EXPECT_STREQ("", sites);
		if (_metadata->exit_code != KSFT_PASS)
			break;
	}
}

TEST_HARNESS_MAIN
