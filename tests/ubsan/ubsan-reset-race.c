// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs ubsan/reset racing failed checks (patch 0033): the counters must
 * agree with each other once the failures stop, however the reset and
 * the failures interleaved. A failure is counted whole before a reset
 * or whole after it, never half: its class's "counted" in ubsan/stats and
 * its site's count in ubsan/sites (or sites_overflow, or sites_unloaded)
 * go up together. So, at rest:
 *
 *   sum of the site counts + sites_overflow + sites_unloaded
 *     == sum of "counted" over the classes
 *
 * and, with no overflow, per class: the counts of the class's sites sum
 * to its "counted", and every site listed is one that failed (a slot
 * freed by a reset and claimed again must not carry a count or a class
 * that was not its own).
 *
 * In report=count mode (nothing printed), one thread per CPU provokes
 * LKDTM UBSAN_BOUNDS and UBSAN_SHIFT (two classes, two sites of
 * drivers/misc/lkdtm/ubsan.c) in a loop while the main thread resets;
 * then everything stops and the invariant is checked. Many rounds (up to
 * ROUNDS, or SECONDS), as a round catches the race only when its reset
 * and a failure overlap. LKDTM
 * logs every provocation at KERN_INFO: the console log level drops below
 * that meanwhile, so that the console does not serialize the threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "lkdtm/lkdtm.h"
#include "ubsan.h"

#define PRINTK		"/proc/sys/kernel/printk"
#define ROUNDS		300
#define SECONDS		10	/* rounds stop after this, if not done */
#define MAX_THREADS	16

static const char *const types[] = { "UBSAN_BOUNDS", "UBSAN_SHIFT" };
static const char *const classes[] = { "bounds", "shift" };
#define NCLASSES	(sizeof(classes) / sizeof(classes[0]))

struct reporter {
	pthread_t thread;
	int cpu;
	atomic_long writes;
	atomic_int *stop;
	int err;
};

static void *reporter_main(void *arg)
{
	struct reporter *r = arg;
	int fd = lkdtm_open();
	cpu_set_t set;
	long i;

	if (fd < 0) {
		r->err = -fd;
		return NULL;
	}
	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; !atomic_load(r->stop); i++) {
		const char *type = types[(i + r->cpu) % 2];
		int ret = lkdtm_provoke_fd(fd, type);

		if (ret) {
			r->err = -ret;
			break;
		}
		atomic_fetch_add(&r->writes, 1);
	}
	close(fd);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Waits until each reporter has written @n more times than in @base. */
static void wait_writes(struct reporter *r, int n, long *base, long more)
{
	int i;

	for (i = 0; i < n; i++)
		while (atomic_load(&r[i].writes) < base[i] + more && !r[i].err)
			sleep_ms(1);
}

struct tally {
	long counted[NCLASSES], all_counted;
	long sites[NCLASSES], all_sites, foreign;
	long overflow, unloaded;
	char foreign_line[256];
};

static long stats_value(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	long v = 0;

	if (p && (p == buf || p[-1] == '\n'))
		sscanf(p + strlen(key), " %ld", &v);
	return v;
}

static int tally(struct tally *t)
{
	static char buf[65536];
	struct ubsan_stats st;
	char class[32], where[200], *line, *save;
	const char *all[] = { "shift", "bounds", "divide", "overflow", "negate",
			      "null", "alignment", "object-size", "bool",
			      "enum", "unreachable", "alignment-assumption" };
	size_t i, j;
	long count;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (ubsan_read_stats(all[i], &st))
			return -1;
		t->all_counted += st.counted;
		for (j = 0; j < NCLASSES; j++)
			if (!strcmp(all[i], classes[j]))
				t->counted[j] = st.counted;
	}
	if (guest_read_file(UBSAN_DEBUGFS "stats", buf, sizeof(buf)))
		return -1;
	t->overflow = stats_value(buf, "sites_overflow");
	t->unloaded = stats_value(buf, "sites_unloaded");
	if (guest_read_file(UBSAN_DEBUGFS "sites", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s %199s %ld", class, where, &count) != 3)
			return -1;
		t->all_sites += count;
		for (j = 0; j < NCLASSES; j++)
			if (!strcmp(class, classes[j]) &&
			    strstr(where, UBSAN_LKDTM_FILE ":"))
				break;
		if (j == NCLASSES) {
			t->foreign += count;
			snprintf(t->foreign_line, sizeof(t->foreign_line),
				 "%s", line);
			continue;
		}
		t->sites[j] += count;
	}
	return 0;
}

FIXTURE(reset_race) {
	char printk[64];
	int ncpus;
};

FIXTURE_SETUP(reset_race)
{
	self->printk[0] = '\0';
	if (!lkdtm_available() || access(UBSAN_DEBUGFS "reset", W_OK))
		SKIP(return, "needs LKDTM and debugfs ubsan/ (%s)",
		     strerror(errno));
	self->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (self->ncpus > MAX_THREADS)
		self->ncpus = MAX_THREADS;
	ASSERT_EQ(0, guest_write_file(UBSAN_PARAMS "checks", "all"));
	ASSERT_EQ(0, guest_write_file(UBSAN_PARAMS "report", "count"));
	ASSERT_EQ(0, guest_write_file(UBSAN_DEBUGFS "reset", "1"));
	ASSERT_EQ(0, guest_read_file(PRINTK, self->printk,
				     sizeof(self->printk)));
	/* console log level 6: KERN_INFO and above stay off the console */
	ASSERT_EQ(0, guest_write_file(PRINTK, "6"));
}

FIXTURE_TEARDOWN(reset_race)
{
	if (self->printk[0]) {
		char level[16];

		snprintf(level, sizeof(level), "%d", atoi(self->printk));
		guest_write_file(PRINTK, level);
	}
	guest_write_file(UBSAN_PARAMS "report", "once");
	guest_write_file(UBSAN_DEBUGFS "reset", "1");
}

TEST_F_TIMEOUT(reset_race, counters_agree_after_resets_race_failures, 180)
{
	struct reporter r[MAX_THREADS];
	long base[MAX_THREADS];
	int n = self->ncpus < 2 ? 2 : self->ncpus, round, i;
	time_t start = time(NULL);
	atomic_int stop;
	struct tally t;
	size_t j;

	for (round = 0; round < ROUNDS; round++) {
		atomic_store(&stop, 0);
		for (i = 0; i < n; i++) {
			memset(&r[i], 0, sizeof(r[i]));
			r[i].cpu = i % (self->ncpus > 0 ? self->ncpus : 1);
			r[i].stop = &stop;
			base[i] = 0;
			ASSERT_EQ(0, pthread_create(&r[i].thread, NULL,
						    reporter_main, &r[i]));
		}
		/* the reset lands while every thread is failing checks */
		wait_writes(r, n, base, 2);
		EXPECT_EQ(0, guest_write_file(UBSAN_DEBUGFS "reset", "1"));
		for (i = 0; i < n; i++)
			base[i] = atomic_load(&r[i].writes);
		wait_writes(r, n, base, 2);
		atomic_store(&stop, 1);
		for (i = 0; i < n; i++) {
			pthread_join(r[i].thread, NULL);
			ASSERT_EQ(0, r[i].err)
				TH_LOG("LKDTM write on CPU %d: %s", r[i].cpu,
				       strerror(r[i].err));
		}

		ASSERT_EQ(0, tally(&t)) TH_LOG("cannot read ubsan/stats or sites");
		EXPECT_EQ(t.all_counted,
			  t.all_sites + t.overflow + t.unloaded)
			TH_LOG("round %d: counted %ld, sites %ld + overflow %ld + unloaded %ld",
			       round, t.all_counted, t.all_sites, t.overflow,
			       t.unloaded);
		EXPECT_EQ(0, t.foreign)
			TH_LOG("round %d: a site that did not fail: %s", round,
			       t.foreign_line);
		for (j = 0; j < NCLASSES && !t.overflow && !t.unloaded; j++)
			EXPECT_EQ(t.counted[j], t.sites[j])
				TH_LOG("round %d: %s counted %ld, its sites %ld",
				       round, classes[j], t.counted[j],
				       t.sites[j]);
		if (_metadata->exit_code != KSFT_PASS ||
		    time(NULL) - start > SECONDS)
			break;
	}
	TH_LOG("%d rounds on %d CPUs", round, self->ncpus);
}

TEST_HARNESS_MAIN
