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
 *
 * The positive control is the tree's lib/test_ubsan.c (a module: the test
 * builds carry it in /lib/modules): loaded with the defaults, each of its
 * cases that the compiler instruments reports exactly once, the ones it
 * does not (said below, with the reason) not at all, and sites lists each
 * once. Unloading it must take its sites out of the table (their source
 * locations were in the module's memory), and loading it again reports
 * every case once more: a new module has new sites.
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

#define DIRECT		"/sys/kernel/debug/provoke-crash/DIRECT"
#define PARAMS		"/sys/module/ubsan/parameters/"
#define DEBUGFS		"/sys/kernel/debug/ubsan/"
#define REPORT_LINE	"UBSAN: array-index-out-of-bounds"
#define LOG_SIZE	(256 * 1024)
#define TEST_UBSAN_KO	"/lib/modules/test_ubsan.ko"

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
	return guest_read_file(path, buf, size) ? NULL : buf;
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

/*
 * What each case of lib/test_ubsan.c (its pr_info() before the failure:
 * function, what, the config option) must report under GCC 12 with our
 * test config: 1 report of the class (its row in debugfs stats) or 0, and
 * why not.
 */
static const struct {
	const char *name;
	int reports;
	const char *class;
	const char *why_not;
} test_ubsan_cases[] = {
	{ "test_ubsan_add_overflow", 0, "overflow", "UBSAN_SIGNED_WRAP=n" },
	{ "test_ubsan_sub_overflow", 0, "overflow", "UBSAN_SIGNED_WRAP=n" },
	{ "test_ubsan_mul_overflow", 0, "overflow", "UBSAN_SIGNED_WRAP=n" },
	{ "test_ubsan_negate_overflow", 0, "negate", "UBSAN_SIGNED_WRAP=n" },
	{ "test_ubsan_shift_out_of_bounds negative exponent", 1, "shift", NULL },
	{ "test_ubsan_shift_out_of_bounds left overflow", 0, "shift",
	  "-fno-strict-overflow drops the signed shift-base check" },
	{ "test_ubsan_out_of_bounds above", 1, "bounds", NULL },
	{ "test_ubsan_out_of_bounds below", 1, "bounds", NULL },
	{ "test_ubsan_load_invalid_value bool", 1, "bool", NULL },
	{ "test_ubsan_load_invalid_value enum", 0, "enum",
	  "GCC emits no -fsanitize=enum checks for C" },
	{ "test_ubsan_misaligned_access", 0, "alignment", "UBSAN_ALIGNMENT=n" },
};

#define NCASES	(sizeof(test_ubsan_cases) / sizeof(test_ubsan_cases[0]))

/*
 * Count the test_ubsan.c reports in @log after each case's line into
 * @got; returns the number of cases seen, or -1 for a report before any.
 */
static int test_ubsan_reports(const char *log, int got[NCASES])
{
	const char *line, *end;
	int cur = -1, seen = 0;
	size_t i;

	memset(got, 0, NCASES * sizeof(got[0]));
	for (line = log; *line; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		if (memmem(line, end - line, "UBSAN: ", 7) &&
		    memmem(line, end - line, "test_ubsan.c:", 13)) {
			if (cur < 0)
				return -1;
			got[cur]++;
			continue;
		}
		for (i = 0; i < NCASES; i++) {
			size_t n = strlen(test_ubsan_cases[i].name);
			const char *p = memmem(line, end - line,
					       test_ubsan_cases[i].name, n);

			/* the name, then " (CONFIG_" */
			if (p && !strncmp(p + n, " (CONFIG_", 9)) {
				cur = i;
				seen++;
			}
		}
	}
	return seen;
}

/* The test_ubsan.c entries of debugfs sites: how many, and their counts. */
static int test_ubsan_sites(int *count_not_one)
{
	char buf[16384], *line;
	int n = 0;
	long count;

	*count_not_one = 0;
	if (!get(DEBUGFS "sites", buf, sizeof(buf)))
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strstr(line, "test_ubsan.c:"))
			continue;
		n++;
		if (sscanf(strrchr(line, ' '), " %ld", &count) != 1 ||
		    count != 1)
			(*count_not_one)++;
	}
	return n;
}

/*
 * Load test_ubsan.ko (its init runs every case) after a reset, and check
 * each case's reports and each class's counters (reported = counted).
 */
static void load_test_ubsan(struct __test_metadata *_metadata, int kmsg,
			    char *log, int got[NCASES], int *reports)
{
	int fd = open(TEST_UBSAN_KO, O_RDONLY | O_CLOEXEC);
	size_t i, j;

	ASSERT_LE(0, fd) TH_LOG(TEST_UBSAN_KO ": %s", strerror(errno));
	ASSERT_EQ(0, put(DEBUGFS "reset", "1"));
	ASSERT_EQ(0, guest_expect_splat(kmsg, "test_ubsan.c:"));
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0))
		TH_LOG("finit_module: %s", strerror(errno));
	close(fd);
	log[0] = '\0';
	guest_kmsg_read(kmsg, log, LOG_SIZE);
	ASSERT_EQ((int)NCASES, test_ubsan_reports(log, got))
		TH_LOG("the cases of test_ubsan.c in the log: %s", log);
	*reports = 0;
	for (i = 0; i < NCASES; i++) {
		EXPECT_EQ(test_ubsan_cases[i].reports, got[i])
			TH_LOG("%s: %d reports, expected %d%s%s",
			       test_ubsan_cases[i].name, got[i],
			       test_ubsan_cases[i].reports,
			       test_ubsan_cases[i].why_not ? ": " : "",
			       test_ubsan_cases[i].why_not ?: "");
		*reports += got[i];
	}
	for (i = 0; i < NCASES; i++) {
		const char *class = test_ubsan_cases[i].class;
		struct stats st;
		long want = 0;

		for (j = 0; j < NCASES; j++)
			if (!strcmp(test_ubsan_cases[j].class, class))
				want += test_ubsan_cases[j].reports;
		ASSERT_EQ(0, class_stats(class, &st)) TH_LOG("class %s", class);
		EXPECT_EQ(want, st.reported) TH_LOG("class %s", class);
		EXPECT_EQ(want, st.counted) TH_LOG("class %s", class);
	}
}

TEST_F(ubsan, test_ubsan_reports_each_case_once_and_unloads_its_sites)
{
	int got[NCASES], reports, n, not_one;

	if (access(TEST_UBSAN_KO, F_OK) && access("/proc/modules", F_OK))
		SKIP(return, "a kernel without modules: no test_ubsan.ko");
	load_test_ubsan(_metadata, self->kmsg, self->log, got, &reports);
	EXPECT_LT(0, reports);
	n = test_ubsan_sites(&not_one);
	EXPECT_EQ(reports, n);
	EXPECT_EQ(0, not_one);

	ASSERT_EQ(0, syscall(SYS_delete_module, "test_ubsan", O_NONBLOCK))
		TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(0, test_ubsan_sites(&not_one));

	/* a new module, new source locations: each reports once again */
	load_test_ubsan(_metadata, self->kmsg, self->log, got, &reports);
	EXPECT_EQ(reports, test_ubsan_sites(&not_one));
	EXPECT_EQ(0, not_one);
	ASSERT_EQ(0, syscall(SYS_delete_module, "test_ubsan", O_NONBLOCK));
	EXPECT_EQ(0, test_ubsan_sites(&not_one));
}

TEST_HARNESS_MAIN
