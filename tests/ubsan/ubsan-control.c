// SPDX-License-Identifier: GPL-2.0
/*
 * UBSAN run-time control (patches 0023-0024): ubsan.report= and ubsan.checks= in
 * /sys/module/ubsan/parameters, and debugfs ubsan/{stats,sites,suppress,
 * reset}, driven with one failing check the test can repeat at will: LKDTM
 * ARRAY_BOUNDS writes one byte past an 8-byte array, one bounds failure at
 * one site per write.
 *
 * Each case resets the counters and the sites, sets the mode, provokes the
 * failure N times and checks both the counters of class "bounds" and the
 * console (/dev/kmsg, read from just before the first write) for
 * "UBSAN: array-index-out-of-bounds". Cases that expect reports announce
 * them to the boot verdict first ("harness: expect splat: ...").
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

#define DIRECT		"/sys/kernel/debug/provoke-crash/DIRECT"
#define PARAMS		"/sys/module/ubsan/parameters/"
#define DEBUGFS		"/sys/kernel/debug/ubsan/"
#define REPORT_LINE	"UBSAN: array-index-out-of-bounds"
#define LOG_SIZE	(256 * 1024)

struct stats {
	long reported, counted, suppressed;
};

/* Write @val to @path; returns 0 or the errno of the write. */
static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

static char *get(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	buf[0] = '\0';
	if (fd < 0)
		return NULL;
	while (len < (ssize_t)size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return buf;
}

static int class_stats(const char *class, struct stats *st)
{
	char buf[4096], name[32], *line;

	if (!get(DEBUGFS "stats", buf, sizeof(buf)))
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%31s %ld %ld %ld", name, &st->reported,
			   &st->counted, &st->suppressed) == 4 &&
		    !strcmp(name, class))
			return 0;
	return -1;
}

static int count_lines(const char *log, const char *what)
{
	int n = 0;

	for (log = strstr(log, what); log; log = strstr(log + 1, what))
		n++;
	return n;
}

FIXTURE(ubsan) {
	int kmsg;
	char *log;
	unsigned int line;	/* of the bugs.c:line suppression, if added */
};

FIXTURE_SETUP(ubsan)
{
	self->kmsg = -1;
	if (access(DIRECT, W_OK) || access(DEBUGFS "reset", W_OK))
		SKIP(return, "needs LKDTM and debugfs ubsan/ (%s)",
		     strerror(errno));
	ASSERT_EQ(0, put(DEBUGFS "reset", "1"));
	ASSERT_EQ(0, put(PARAMS "checks", "all"));
	ASSERT_EQ(0, put(PARAMS "report", "once"));
	self->log = calloc(1, LOG_SIZE);
	ASSERT_NE(NULL, self->log);
	self->kmsg = guest_kmsg_open();
	ASSERT_LE(0, self->kmsg) TH_LOG("/dev/kmsg: %s", strerror(-self->kmsg));
}

/* Undo what a case that failed half-way may have left set. */
FIXTURE_TEARDOWN(ubsan)
{
	char sup[64];

	put(PARAMS "checks", "all");
	put(PARAMS "report", "once");
	put(DEBUGFS "suppress", "!lkdtm/bugs.c");
	if (self->line) {
		snprintf(sup, sizeof(sup), "!drivers/misc/lkdtm/bugs.c:%u",
			 self->line);
		put(DEBUGFS "suppress", sup);
	}
	put(DEBUGFS "reset", "1");
	if (self->kmsg >= 0)
		close(self->kmsg);
	free(self->log);
}

static void announce(struct __test_metadata *_metadata, int kmsg)
{
	/* not REPORT_LINE itself: the test counts that in the same log */
	ASSERT_EQ(0, guest_expect_splat(kmsg, "array-index-out-of-bounds in"));
}

/* Provoke the bounds failure @n times; returns the console lines seen. */
static int provoke(struct __test_metadata *_metadata, int kmsg, char *log,
		   int n)
{
	int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, put(DIRECT, "ARRAY_BOUNDS"));
	log[0] = '\0';
	guest_kmsg_read(kmsg, log, LOG_SIZE);
	return count_lines(log, REPORT_LINE);
}

TEST_F(ubsan, once_reports_a_site_once_and_counts_every_failure)
{
	struct stats st;

	announce(_metadata, self->kmsg);
	EXPECT_EQ(1, provoke(_metadata, self->kmsg, self->log, 3));
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(1, st.reported);
	EXPECT_EQ(3, st.counted);
	EXPECT_EQ(0, st.suppressed);
}

TEST_F(ubsan, all_reports_every_failure)
{
	struct stats st;

	ASSERT_EQ(0, put(PARAMS "report", "all"));
	announce(_metadata, self->kmsg);
	EXPECT_EQ(3, provoke(_metadata, self->kmsg, self->log, 3));
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(3, st.reported);
	EXPECT_EQ(3, st.counted);
}

TEST_F(ubsan, all_is_rate_limited)
{
	struct stats st;
	int seen;

	ASSERT_EQ(0, put(PARAMS "report", "all"));
	announce(_metadata, self->kmsg);
	seen = provoke(_metadata, self->kmsg, self->log, 50);
	EXPECT_LE(1, seen);
	EXPECT_GT(50, seen);
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(seen, st.reported);
	EXPECT_EQ(50, st.counted);
}

TEST_F(ubsan, count_prints_nothing_and_counts)
{
	struct stats st;

	ASSERT_EQ(0, put(PARAMS "report", "count"));
	EXPECT_EQ(0, provoke(_metadata, self->kmsg, self->log, 3));
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(0, st.reported);
	EXPECT_EQ(3, st.counted);
}

TEST_F(ubsan, suppressed_file_neither_prints_nor_counts_as_reported)
{
	char buf[1024];
	struct stats st;

	ASSERT_EQ(0, put(DEBUGFS "suppress", "lkdtm/bugs.c"));
	ASSERT_NE(NULL, get(DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "lkdtm/bugs.c\n"));
	EXPECT_EQ(0, provoke(_metadata, self->kmsg, self->log, 2));
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(0, st.reported);
	EXPECT_EQ(2, st.suppressed);
	ASSERT_EQ(0, put(DEBUGFS "suppress", "!lkdtm/bugs.c"));
	ASSERT_NE(NULL, get(DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "lkdtm/bugs.c"));
}

TEST_F(ubsan, sites_lists_the_site_and_file_line_suppresses_it)
{
	char buf[8192], sup[256], *p, *end;
	struct stats st;
	unsigned int line;

	ASSERT_EQ(0, put(PARAMS "report", "count"));
	provoke(_metadata, self->kmsg, self->log, 2);
	ASSERT_NE(NULL, get(DEBUGFS "sites", buf, sizeof(buf)));
	p = strstr(buf, "lkdtm/bugs.c:");
	ASSERT_NE(NULL, p) TH_LOG("sites: %s", buf);
	end = strchr(p, '\n');
	ASSERT_NE(NULL, end);
	*end = '\0';
	while (p > buf && p[-1] != '\n')
		p--;
	EXPECT_EQ(0, strncmp(p, "bounds ", 7)) TH_LOG("site line: %s", p);
	p = strstr(p, "lkdtm/bugs.c:");
	ASSERT_EQ(1, sscanf(p, "lkdtm/bugs.c:%u:", &line));
	self->line = line;
	EXPECT_NE(NULL, strstr(p, " 2")) TH_LOG("site line: %s", p);

	snprintf(sup, sizeof(sup), "drivers/misc/lkdtm/bugs.c:%u", line);
	ASSERT_EQ(0, put(DEBUGFS "suppress", sup));
	ASSERT_EQ(0, put(DEBUGFS "reset", "1"));
	ASSERT_EQ(0, put(PARAMS "report", "all"));
	EXPECT_EQ(0, provoke(_metadata, self->kmsg, self->log, 2));
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(2, st.suppressed);
	EXPECT_EQ(0, st.reported);
	snprintf(sup, sizeof(sup), "!drivers/misc/lkdtm/bugs.c:%u", line);
	EXPECT_EQ(0, put(DEBUGFS "suppress", sup));
}

TEST_F(ubsan, checks_turn_a_class_off_and_on)
{
	char buf[512];
	struct stats st;

	ASSERT_EQ(0, put(PARAMS "checks", "-bounds"));
	ASSERT_NE(NULL, get(PARAMS "checks", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "bounds")) TH_LOG("checks: %s", buf);
	EXPECT_NE(NULL, strstr(buf, "shift")) TH_LOG("checks: %s", buf);
	EXPECT_EQ(0, provoke(_metadata, self->kmsg, self->log, 2));
	ASSERT_EQ(0, class_stats("bounds", &st));
	EXPECT_EQ(0, st.counted);

	ASSERT_EQ(0, put(PARAMS "checks", "none"));
	ASSERT_NE(NULL, get(PARAMS "checks", buf, sizeof(buf)));
	EXPECT_STREQ("none\n", buf);
	ASSERT_EQ(0, put(PARAMS "checks", "bounds,shift"));
	ASSERT_NE(NULL, get(PARAMS "checks", buf, sizeof(buf)));
	EXPECT_STREQ("shift,bounds\n", buf);
	announce(_metadata, self->kmsg);
	EXPECT_EQ(1, provoke(_metadata, self->kmsg, self->log, 1));
}

TEST_F(ubsan, reset_makes_a_site_report_once_again)
{
	announce(_metadata, self->kmsg);
	EXPECT_EQ(1, provoke(_metadata, self->kmsg, self->log, 2));
	ASSERT_EQ(0, put(DEBUGFS "reset", "1"));
	EXPECT_EQ(1, provoke(_metadata, self->kmsg, self->log, 2));
}

TEST_F(ubsan, bad_input_is_refused)
{
	char buf[512];

	EXPECT_EQ(EINVAL, put(PARAMS "checks", "bounds,nosuchclass"));
	EXPECT_EQ(EINVAL, put(PARAMS "checks", "\n"));
	EXPECT_EQ(EINVAL, put(PARAMS "report", "sometimes"));
	EXPECT_EQ(EINVAL, put(DEBUGFS "suppress", "lib/x.c:twelve"));
	EXPECT_EQ(EINVAL, put(DEBUGFS "suppress", "lib/x.c:0"));
	EXPECT_EQ(ENOENT, put(DEBUGFS "suppress", "!lib/never-added.c"));
	ASSERT_NE(NULL, get(PARAMS "report", buf, sizeof(buf)));
	EXPECT_STREQ("once\n", buf);
}

TEST_HARNESS_MAIN
