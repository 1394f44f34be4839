// SPDX-License-Identifier: GPL-2.0
/*
 * UBSAN run-time control (patches 0032-0033): ubsan.report= and ubsan.checks= in
 * /sys/module/ubsan/parameters, and debugfs ubsan/{stats,sites,suppress,
 * reset}, class by class: LKDTM's UBSAN_* crash types (patch 0034) each
 * fail one check of one class at one site of drivers/misc/lkdtm/ubsan.c,
 * which is built with every check GCC emits in C, as often as the test
 * writes the type. Every case runs for each class (the fixture variants):
 * shift, bounds, divide, overflow, negate, null, alignment, object-size
 * and bool. GCC has no enum check for C and no alignment-assumption check;
 * unreachable panics and has boots of its own (ubsan-unreachable.c).
 * UBSAN_HARDIRQ fails a bounds check from hardirq context with a raw
 * spinlock held: it must report and count as in process context, and
 * lockdep and DEBUG_ATOMIC_SLEEP would splat if the report path slept or
 * took a lock of the wrong kind.
 *
 * Each case resets the counters, the sites and the rate limit, sets the
 * mode, provokes the failure N times and checks both the class's counters
 * and the console (/dev/kmsg, read from just before the first write) for
 * "UBSAN: REASON in .../drivers/misc/lkdtm/ubsan.c". Cases that expect reports
 * announce them to the boot verdict first ("harness: expect splat: ...").
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
#include "lkdtm/lkdtm.h"
#include "ubsan.h"

#define LOG_SIZE	(256 * 1024)
#define TEST_UBSAN_KO	"/lib/modules/test_ubsan.ko"

/* Write @val to @path; returns 0 or the errno of the write. */
static int put(const char *path, const char *val)
{
	return -guest_write_file(path, val);
}

static char *get(const char *path, char *buf, size_t size)
{
	return guest_read_file(path, buf, size) ? NULL : buf;
}

/* Whether the comma list @list (a checks= value) has the class @name. */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; *p; p += strcspn(p, ",\n"), p += *p == ',') {
		if (!strncmp(p, name, n) && (!p[n] || strchr(",\n", p[n])))
			return 1;
		if (*p == '\n')
			break;
	}
	return 0;
}

/* What the fixture needs, for both fixtures. */
struct ubsan_state {
	int kmsg;
	char *log;
};

static void setup(struct __test_metadata *_metadata, struct ubsan_state *st)
{
	st->kmsg = -1;
	if (!lkdtm_available() || access(UBSAN_DEBUGFS "reset", W_OK))
		SKIP(return, "needs LKDTM and debugfs ubsan/ (%s)",
		     strerror(errno));
	/*
	 * The parameters first: a write that leaves the control at rest
	 * stops counting, and the reset starts it again.
	 */
	ASSERT_EQ(0, put(UBSAN_PARAMS "checks", "all"));
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "once"));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	st->log = calloc(1, LOG_SIZE);
	ASSERT_NE(NULL, st->log);
	st->kmsg = guest_kmsg_open();
	ASSERT_LE(0, st->kmsg) TH_LOG("/dev/kmsg: %s", strerror(-st->kmsg));
}

static void teardown(struct ubsan_state *st)
{
	put(UBSAN_PARAMS "checks", "all");
	put(UBSAN_PARAMS "report", "once");
	put(UBSAN_DEBUGFS "reset", "1");
	if (st->kmsg >= 0)
		close(st->kmsg);
	free(st->log);
}

FIXTURE(ubsan) {
	struct ubsan_state st;
	unsigned int line;	/* of the file:line suppression, if added */
	char report[128];	/* "UBSAN: REASON in " (then UBSAN_LKDTM_FILE) */
	char function[80];	/* "!function:NAME", to undo that one */
};

FIXTURE_VARIANT(ubsan) {
	const char *class;	/* in stats, sites and ubsan.checks= */
	const char *type;	/* the LKDTM crash type */
	const char *reason;	/* of the report: "UBSAN: REASON in ..." */
};

FIXTURE_VARIANT_ADD(ubsan, shift) {
	.class = "shift", .type = "UBSAN_SHIFT",
	.reason = "shift-out-of-bounds",
};

FIXTURE_VARIANT_ADD(ubsan, bounds) {
	.class = "bounds", .type = "UBSAN_BOUNDS",
	.reason = "array-index-out-of-bounds",
};

FIXTURE_VARIANT_ADD(ubsan, divide) {
	.class = "divide", .type = "UBSAN_DIVIDE",
	.reason = "division-overflow",
};

FIXTURE_VARIANT_ADD(ubsan, overflow) {
	.class = "overflow", .type = "UBSAN_OVERFLOW",
	.reason = "signed-integer-overflow",
};

FIXTURE_VARIANT_ADD(ubsan, negate) {
	.class = "negate", .type = "UBSAN_NEGATE",
	.reason = "negation-overflow",
};

FIXTURE_VARIANT_ADD(ubsan, null) {
	.class = "null", .type = "UBSAN_NULL",
	.reason = "null-ptr-deref",
};

FIXTURE_VARIANT_ADD(ubsan, alignment) {
	.class = "alignment", .type = "UBSAN_ALIGNMENT",
	.reason = "misaligned-access",
};

FIXTURE_VARIANT_ADD(ubsan, object_size) {
	.class = "object-size", .type = "UBSAN_OBJECT_SIZE",
	.reason = "object-size-mismatch",
};

FIXTURE_VARIANT_ADD(ubsan, bool) {
	.class = "bool", .type = "UBSAN_BOOL",
	.reason = "invalid-load",
};

FIXTURE_SETUP(ubsan)
{
	snprintf(self->report, sizeof(self->report), "UBSAN: %s in ",
		 variant->reason);
	snprintf(self->function, sizeof(self->function), "!function:lkdtm_%s",
		 variant->type);
	setup(_metadata, &self->st);
}

/* Undo what a case that failed half-way may have left set. */
FIXTURE_TEARDOWN(ubsan)
{
	char sup[64];

	put(UBSAN_DEBUGFS "suppress", "!lkdtm/ubsan.c");
	put(UBSAN_DEBUGFS "suppress", "!lib/never-fails.c");
	put(UBSAN_DEBUGFS "suppress", self->function);
	if (self->line) {
		snprintf(sup, sizeof(sup), "!" UBSAN_LKDTM_FILE ":%u", self->line);
		put(UBSAN_DEBUGFS "suppress", sup);
	}
	teardown(&self->st);
}

/*
 * Tell the boot verdict that reports come, from lkdtm/ubsan.c (the path
 * in a report is the source's, absolute with O= builds).
 */
static void announce(struct __test_metadata *_metadata,
		     const FIXTURE_VARIANT(ubsan) *variant, int kmsg)
{
	ASSERT_EQ(0, guest_expect_splat(kmsg, UBSAN_LKDTM_FILE ":"));
}

/* Provoke the variant's failure @n times; returns the reports printed. */
static int provoke(struct __test_metadata *_metadata,
		   const FIXTURE_VARIANT(ubsan) *variant,
		   FIXTURE_DATA(ubsan) *self, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, lkdtm_provoke(variant->type))
			TH_LOG("LKDTM %s: %s", variant->type, strerror(errno));
	self->st.log[0] = '\0';
	guest_kmsg_read(self->st.kmsg, self->st.log, LOG_SIZE);
	return ubsan_count_lines(self->st.log, self->report, UBSAN_LKDTM_FILE ":");
}

TEST_F(ubsan, once_reports_a_site_once_and_counts_every_failure)
{
	struct ubsan_stats st;

	announce(_metadata, variant, self->st.kmsg);
	EXPECT_EQ(1, provoke(_metadata, variant, self, 3));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(1, st.reported);
	EXPECT_EQ(3, st.counted);
	EXPECT_EQ(0, st.suppressed);
}

TEST_F(ubsan, all_reports_every_failure)
{
	struct ubsan_stats st;

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	announce(_metadata, variant, self->st.kmsg);
	EXPECT_EQ(3, provoke(_metadata, variant, self, 3));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(3, st.reported);
	EXPECT_EQ(3, st.counted);
}

TEST_F(ubsan, all_is_rate_limited)
{
	struct ubsan_stats st;
	int seen;

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	announce(_metadata, variant, self->st.kmsg);
	seen = provoke(_metadata, variant, self, 30);
	EXPECT_LE(1, seen);
	EXPECT_GT(30, seen);
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(seen, st.reported);
	EXPECT_EQ(30, st.counted);
}

TEST_F(ubsan, count_prints_nothing_and_counts)
{
	struct ubsan_stats st;

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "count"));
	EXPECT_EQ(0, provoke(_metadata, variant, self, 3));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(0, st.reported);
	EXPECT_EQ(3, st.counted);
}

TEST_F(ubsan, suppressed_file_neither_prints_nor_counts_as_reported)
{
	char buf[1024];
	struct ubsan_stats st;

	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "lkdtm/ubsan.c"));
	ASSERT_NE(NULL, get(UBSAN_DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "lkdtm/ubsan.c\n"));
	EXPECT_EQ(0, provoke(_metadata, variant, self, 2));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(0, st.reported);
	EXPECT_EQ(2, st.suppressed);
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "!lkdtm/ubsan.c"));
	ASSERT_NE(NULL, get(UBSAN_DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "lkdtm/ubsan.c"));
}

/*
 * A site remembers whether the list suppresses it, for the list as it
 * was: an entry added or removed after the site failed must decide its
 * next failure, without a reset in between. Another entry is listed
 * first, so that the first failure is compared with a list.
 */
TEST_F(ubsan, suppression_changed_after_a_failure_decides_the_next)
{
	struct ubsan_stats st;

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "lib/never-fails.c"));
	announce(_metadata, variant, self->st.kmsg);
	EXPECT_EQ(1, provoke(_metadata, variant, self, 1));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "lkdtm/ubsan.c"));
	EXPECT_EQ(0, provoke(_metadata, variant, self, 2))
		TH_LOG("a file added to the list after its site failed still reports");
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "!lkdtm/ubsan.c"));
	EXPECT_EQ(1, provoke(_metadata, variant, self, 1))
		TH_LOG("a file removed from the list after its site was suppressed stays quiet");
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "!lib/never-fails.c"));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(2, st.reported);
	EXPECT_EQ(2, st.suppressed);
	EXPECT_EQ(4, st.counted);
}

/*
 * The function of a report, as ubsan.rst tells a user to find it: the
 * first frame of the call trace after the __ubsan_handle_* one ("X from
 * NAME+0x.." on the line of the handler on arm, the next line elsewhere),
 * skipping a line at +0x0 (riscv's unwinder prints a stale "_printk+0x0"
 * there) and x86's unreliable "? NAME" guesses. Where the compiler made the handler call a tail call, that is
 * the caller of lkdtm_TYPE (GCC 14: lkdtm_do_action for UBSAN_DIVIDE).
 */
static int trace_function(const char *log, char *name, size_t size)
{
	const char *l, *e, *t, *h, *f, *p;
	bool next = false;
	char line[256];
	size_t n;

	for (l = log; *l; l = *e ? e + 1 : e) {
		e = strchrnul(l, '\n');
		n = (size_t)(e - l) < sizeof(line) ? (size_t)(e - l) : sizeof(line) - 1;
		memcpy(line, l, n);
		line[n] = '\0';
		t = strchr(line, ';');	/* the record's text, after its header */
		t = t ? t + 1 : line;
		if (next) {
			/* x86's "? NAME" is a stale word of the stack */
			if (strstr(t, "+0x0/") ||
			    !strncmp(t + strspn(t, " \t"), "? ", 2))
				continue;
			p = t;
			goto found;
		}
		h = strstr(t, "__ubsan_handle_");
		if (!h)
			continue;
		f = strstr(h, " from ");
		if (f) {
			p = f + 6;
			goto found;
		}
		/* not arm's "ubsan_epilogue from __ubsan_handle_*" line */
		next = !strstr(t, " from ");
	}
	return -1;
found:
	p += strspn(p, " \t");
	if (p[0] == '[' && p[1] == '<') {	/* riscv: "[<address>] NAME+.." */
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	if (!strncmp(p, "? ", 2))
		p += 2;
	n = strcspn(p, "+ ");
	if (!n || n >= size)
		return -1;
	memcpy(name, p, n);
	name[n] = '\0';
	return 0;
}

/*
 * A function's checks, also those GCC moved into NAME.cold with the
 * unlikely path that calls the handler (most of them, with GCC 14).
 */
TEST_F(ubsan, suppressed_function_neither_prints_nor_counts_as_reported)
{
	struct ubsan_stats st;
	char name[64];

	announce(_metadata, variant, self->st.kmsg);
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	ASSERT_EQ(1, provoke(_metadata, variant, self, 1));
	ASSERT_EQ(0, trace_function(self->st.log, name, sizeof(name)))
		TH_LOG("no frame after __ubsan_handle_* in: %s", self->st.log);
	snprintf(self->function, sizeof(self->function), "!function:%s", name);
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", self->function + 1))
		TH_LOG("%s: %s", self->function + 1, strerror(errno));
	EXPECT_EQ(0, provoke(_metadata, variant, self, 2));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(0, st.reported);
	EXPECT_EQ(2, st.suppressed);
	EXPECT_EQ(0, put(UBSAN_DEBUGFS "suppress", self->function));
}

TEST_F(ubsan, sites_lists_the_site_and_file_line_suppresses_it)
{
	char buf[8192], sup[256], *p, *end;
	struct ubsan_stats st;
	unsigned int line;
	size_t n = strlen(variant->class);

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "count"));
	provoke(_metadata, variant, self, 2);
	ASSERT_NE(NULL, get(UBSAN_DEBUGFS "sites", buf, sizeof(buf)));
	p = strstr(buf, UBSAN_LKDTM_FILE ":");
	ASSERT_NE(NULL, p) TH_LOG("sites: %s", buf);
	end = strchr(p, '\n');
	ASSERT_NE(NULL, end);
	*end = '\0';
	while (p > buf && p[-1] != '\n')
		p--;
	EXPECT_TRUE(!strncmp(p, variant->class, n) && p[n] == ' ')
		TH_LOG("site line: %s", p);
	p = strstr(p, UBSAN_LKDTM_FILE ":");
	ASSERT_EQ(1, sscanf(p, UBSAN_LKDTM_FILE ":%u:", &line));
	self->line = line;
	EXPECT_NE(NULL, strstr(p, " 2")) TH_LOG("site line: %s", p);

	snprintf(sup, sizeof(sup), UBSAN_LKDTM_FILE ":%u", line);
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", sup));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	EXPECT_EQ(0, provoke(_metadata, variant, self, 2));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(2, st.suppressed);
	EXPECT_EQ(0, st.reported);
	snprintf(sup, sizeof(sup), "!" UBSAN_LKDTM_FILE ":%u", line);
	EXPECT_EQ(0, put(UBSAN_DEBUGFS "suppress", sup));
}

TEST_F(ubsan, checks_turn_a_class_off_and_on)
{
	char buf[512];
	struct ubsan_stats st;

	snprintf(buf, sizeof(buf), "-%s", variant->class);
	ASSERT_EQ(0, put(UBSAN_PARAMS "checks", buf));
	ASSERT_NE(NULL, get(UBSAN_PARAMS "checks", buf, sizeof(buf)));
	EXPECT_FALSE(in_list(buf, variant->class)) TH_LOG("checks: %s", buf);
	EXPECT_TRUE(in_list(buf, strcmp(variant->class, "shift") ?
				 "shift" : "bounds"))
		TH_LOG("checks: %s", buf);
	EXPECT_EQ(0, provoke(_metadata, variant, self, 2));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(0, st.counted);

	ASSERT_EQ(0, put(UBSAN_PARAMS "checks", "none"));
	ASSERT_NE(NULL, get(UBSAN_PARAMS "checks", buf, sizeof(buf)));
	EXPECT_STREQ("none\n", buf);
	EXPECT_EQ(0, provoke(_metadata, variant, self, 1));
	ASSERT_EQ(0, put(UBSAN_PARAMS "checks", variant->class));
	ASSERT_NE(NULL, get(UBSAN_PARAMS "checks", buf, sizeof(buf)));
	EXPECT_TRUE(in_list(buf, variant->class) &&
		    strlen(buf) == strlen(variant->class) + 1)
		TH_LOG("checks: %s", buf);
	announce(_metadata, variant, self->st.kmsg);
	EXPECT_EQ(1, provoke(_metadata, variant, self, 1));
	ASSERT_EQ(0, ubsan_read_stats(variant->class, &st));
	EXPECT_EQ(1, st.counted);
}

TEST_F(ubsan, reset_makes_a_site_report_once_again)
{
	announce(_metadata, variant, self->st.kmsg);
	EXPECT_EQ(1, provoke(_metadata, variant, self, 2));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	EXPECT_EQ(1, provoke(_metadata, variant, self, 2));
}

/* The cases below are not about one class. */
FIXTURE(ubsan_all) {
	struct ubsan_state st;
};

FIXTURE_SETUP(ubsan_all)
{
	setup(_metadata, &self->st);
}

FIXTURE_TEARDOWN(ubsan_all)
{
	teardown(&self->st);
}

/* Write the @len bytes at @val to @path at once: 0 or the errno. */
static int put_bytes(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, len) < 0)
		ret = errno;
	close(fd);
	return ret;
}

TEST_F(ubsan_all, bad_input_is_refused)
{
	char buf[512];

	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "checks", "bounds,nosuchclass"));
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "checks", "\n"));
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "checks", "bounds\nshift"));
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "checks", "bounds,,shift"));
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "report", "sometimes"));
	EXPECT_EQ(EINVAL, put(UBSAN_DEBUGFS "suppress", "lib/x.c:twelve"));
	EXPECT_EQ(EINVAL, put(UBSAN_DEBUGFS "suppress", "lib/x.c:0"));
	/* a NUL inside the entry: not "lib/x.c", which would be all of it */
	EXPECT_EQ(EINVAL, put_bytes(UBSAN_DEBUGFS "suppress", "lib/x.c\0:12", 11));
	EXPECT_EQ(ENOENT, put(UBSAN_DEBUGFS "suppress", "!lib/never-added.c"));
	ASSERT_NE(NULL, get(UBSAN_PARAMS "report", buf, sizeof(buf)));
	EXPECT_STREQ("once\n", buf);
	ASSERT_NE(NULL, get(UBSAN_PARAMS "checks", buf, sizeof(buf)));
	EXPECT_TRUE(in_list(buf, "bounds") && in_list(buf, "shift") &&
		    in_list(buf, "null"))
		TH_LOG("checks after refused writes: %s", buf);
	ASSERT_NE(NULL, get(UBSAN_DEBUGFS "suppress", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

/* Each refusal of a parameter says why in the log, on one line. */
TEST_F(ubsan_all, a_refused_parameter_is_named_in_the_log)
{
	guest_kmsg_read(self->st.kmsg, self->st.log, LOG_SIZE);
	self->st.log[0] = '\0';
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "report", "sometimes\n"));
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "checks", "\n"));
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "checks", "bounds,nosuchclass\n"));
	guest_kmsg_read(self->st.kmsg, self->st.log, LOG_SIZE);
	EXPECT_NE(NULL, strstr(self->st.log, "ubsan: unknown report mode 'sometimes'\n"))
		TH_LOG("log: %s", self->st.log);
	EXPECT_NE(NULL, strstr(self->st.log, "ubsan: no check class in ubsan.checks=\n"))
		TH_LOG("log: %s", self->st.log);
	EXPECT_NE(NULL, strstr(self->st.log, "ubsan: unknown check class 'nosuchclass'\n"))
		TH_LOG("log: %s", self->st.log);
}

/* Whether debugfs stats says counting is on: 1, 0, or -1 */
static int counting(void)
{
	char buf[4096], *p;

	if (guest_read_file(UBSAN_DEBUGFS "stats", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\ncounting ");
	if (!p)
		return -1;
	p += strlen("\ncounting ");
	return !strncmp(p, "on\n", 3) ? 1 : !strncmp(p, "off\n", 4) ? 0 : -1;
}

/*
 * Counting starts when something asks and stops when nothing does: a
 * write that brings both parameters back to their defaults, with nothing
 * suppressed, puts failed checks back on the short way they had before
 * the control. A write that is refused changes nothing.
 */
TEST_F(ubsan_all, counting_stops_at_the_defaults_and_a_refused_write_changes_nothing)
{
	EXPECT_EQ(1, counting());	/* setup's reset */
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "once"));
	EXPECT_EQ(0, counting());
	EXPECT_EQ(ENOENT, put(UBSAN_DEBUGFS "suppress", "function:ubsan_no_such_function"));
	EXPECT_EQ(0, counting());
	EXPECT_EQ(EINVAL, put(UBSAN_DEBUGFS "suppress", "lib/x.c:0"));
	EXPECT_EQ(0, counting());
	EXPECT_EQ(EINVAL, put(UBSAN_PARAMS "report", "sometimes"));
	EXPECT_EQ(0, counting());

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "count"));
	EXPECT_EQ(1, counting());
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "once"));
	EXPECT_EQ(0, counting());

	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "lib/never-fails.c"));
	EXPECT_EQ(1, counting());
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "once"));
	EXPECT_EQ(1, counting());	/* the suppression still needs it */
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "suppress", "!lib/never-fails.c"));
	EXPECT_EQ(0, counting());
}

/*
 * report=all is UBSAN's multi-shot mode: as with KASAN's (kasan_multi_shot),
 * a report does not panic with panic_on_warn, nor count for warn_limit.
 */
TEST_F(ubsan_all, report_all_does_not_panic_on_warn)
{
	char old[32];

	ASSERT_EQ(0, guest_read_file("/proc/sys/kernel/panic_on_warn", old,
				     sizeof(old)));
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	ASSERT_EQ(0, guest_expect_splat(self->st.kmsg, UBSAN_LKDTM_FILE ":"));
	ASSERT_EQ(0, put("/proc/sys/kernel/panic_on_warn", "1"));
	EXPECT_EQ(0, lkdtm_provoke("UBSAN_BOUNDS"));
	EXPECT_EQ(0, lkdtm_provoke("UBSAN_BOUNDS"));
	put("/proc/sys/kernel/panic_on_warn", old);
	guest_kmsg_read(self->st.kmsg, self->st.log, LOG_SIZE);
	EXPECT_EQ(2, ubsan_count_lines(self->st.log, "UBSAN: array-index-out-of-bounds in ",
				       UBSAN_LKDTM_FILE ":"));
}

TEST_F(ubsan_all, a_failure_in_hardirq_with_a_lock_held_reports_and_counts)
{
	struct ubsan_stats st;
	int i;

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "all"));
	ASSERT_EQ(0, guest_expect_splat(self->st.kmsg, UBSAN_LKDTM_FILE ":"));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, lkdtm_provoke("UBSAN_HARDIRQ"))
			TH_LOG("LKDTM UBSAN_HARDIRQ: %s", strerror(errno));
	guest_kmsg_read(self->st.kmsg, self->st.log, LOG_SIZE);
	EXPECT_EQ(3, ubsan_count_lines(self->st.log, "in hardirq context", "lkdtm"))
		TH_LOG("the irq_work did not run in hardirq context");
	EXPECT_EQ(3, ubsan_count_lines(self->st.log, "UBSAN: array-index-out-of-bounds in ",
				 UBSAN_LKDTM_FILE ":"));
	EXPECT_EQ(NULL, strstr(self->st.log, "lkdtm: FAIL"));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(3, st.reported);
	EXPECT_EQ(3, st.counted);
}

/*
 * Patch 0037: a check that fails inside a user access window reports with
 * user access closed and gives the window back; so does its repeat at the
 * defaults, which returns before the handler closes anything, and so does
 * a failure that is only counted. LKDTM UBSAN_IN_USER_ACCESS fails one
 * check per handler in the window, twice, and stores to a user page after
 * each round; it says how many checks: once mode (counting off) reports
 * each once, count mode none.
 */
#define IN_USER_ACCESS_OK "lkdtm: OK: failed checks inside a user access window leave it open ("

static int provoke_in_user_access(struct __test_metadata *_metadata,
				  FIXTURE_DATA(ubsan_all) *self)
{
	const char *ok;
	int checks = -1;

	EXPECT_EQ(0, lkdtm_provoke("UBSAN_IN_USER_ACCESS"))
		TH_LOG("LKDTM UBSAN_IN_USER_ACCESS: %s", strerror(errno));
	self->st.log[0] = '\0';
	guest_kmsg_read(self->st.kmsg, self->st.log, LOG_SIZE);
	EXPECT_EQ(NULL, strstr(self->st.log, "lkdtm: FAIL"))
		TH_LOG("%.300s", strstr(self->st.log, "lkdtm: FAIL"));
	ok = strstr(self->st.log, IN_USER_ACCESS_OK);
	if (ok)
		sscanf(ok + strlen(IN_USER_ACCESS_OK), "%d checks", &checks);
	EXPECT_LT(0, checks) TH_LOG("no \"%s\" line", IN_USER_ACCESS_OK);
	return checks;
}

TEST_F(ubsan_all, failed_checks_inside_a_user_access_window_leave_it_open)
{
	struct ubsan_stats st;
	int checks;

	/* the defaults: the repeats take 6.12's short way */
	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "once"));
	ASSERT_EQ(0, counting());
	ASSERT_EQ(0, guest_expect_splat(self->st.kmsg, UBSAN_LKDTM_FILE ":"));
	checks = provoke_in_user_access(_metadata, self);
	EXPECT_EQ(checks, ubsan_count_lines(self->st.log, "UBSAN: ",
					    UBSAN_LKDTM_FILE ":"));

	ASSERT_EQ(0, put(UBSAN_PARAMS "report", "count"));
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
	EXPECT_EQ(checks, provoke_in_user_access(_metadata, self));
	EXPECT_EQ(0, ubsan_count_lines(self->st.log, "UBSAN: ",
				       UBSAN_LKDTM_FILE ":"));
	ASSERT_EQ(0, ubsan_read_stats("bounds", &st));
	EXPECT_EQ(2, st.counted);
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
	if (!get(UBSAN_DEBUGFS "sites", buf, sizeof(buf)))
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
	ASSERT_EQ(0, put(UBSAN_DEBUGFS "reset", "1"));
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
		struct ubsan_stats st;
		long want = 0;

		for (j = 0; j < NCASES; j++)
			if (!strcmp(test_ubsan_cases[j].class, class))
				want += test_ubsan_cases[j].reports;
		ASSERT_EQ(0, ubsan_read_stats(class, &st)) TH_LOG("class %s", class);
		EXPECT_EQ(want, st.reported) TH_LOG("class %s", class);
		EXPECT_EQ(want, st.counted) TH_LOG("class %s", class);
	}
}

TEST_F(ubsan_all, test_ubsan_reports_each_case_once_and_unloads_its_sites)
{
	int got[NCASES], reports, n, not_one;

	if (access(TEST_UBSAN_KO, F_OK) && access("/proc/modules", F_OK))
		SKIP(return, "a kernel without modules: no test_ubsan.ko");
	load_test_ubsan(_metadata, self->st.kmsg, self->st.log, got, &reports);
	EXPECT_LT(0, reports);
	n = test_ubsan_sites(&not_one);
	EXPECT_EQ(reports, n);
	EXPECT_EQ(0, not_one);

	ASSERT_EQ(0, syscall(SYS_delete_module, "test_ubsan", O_NONBLOCK))
		TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(0, test_ubsan_sites(&not_one));

	/* a new module, new source locations: each reports once again */
	load_test_ubsan(_metadata, self->st.kmsg, self->st.log, got, &reports);
	EXPECT_EQ(reports, test_ubsan_sites(&not_one));
	EXPECT_EQ(0, not_one);
	ASSERT_EQ(0, syscall(SYS_delete_module, "test_ubsan", O_NONBLOCK));
	EXPECT_EQ(0, test_ubsan_sites(&not_one));
}

TEST_HARNESS_MAIN
