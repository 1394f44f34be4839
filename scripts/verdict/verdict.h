/*
 * verdict - decide pass/fail per test case from one guest boot's serial log
 *
 * Build: gcc -O2 -Wall -Wextra -Iguest -o verdict scripts/verdict/[a-z]*.c
 *
 * One file per concern, each with its own state:
 *
 *	log.c		reading the log: lines, timestamps, what kind of line
 *	ktap.c		TAP/KTAP lines, and the guest suites relayed by init
 *	kunit.c		KUnit's KTAP on kernel lines
 *	splat.c		kernel splats, announced ones, the expected panic
 *	known.c		known differences (--known)
 *	report.c	the cases: results file, failures with context
 *	main.c		options, the pass over the log, the boot's own cases
 *	util.c		memory, strings
 *
 * What the log holds (markers, relayed suite lines, kernel lines) is
 * described in guest/protocol.h, whose strings the verdict parses; what
 * the verdict makes of it:
 *
 * A guest suite's cases are its top-level TAP results; a suite that
 * printed fewer results than its plan, exited non-zero, never began
 * (--suites) or never ended fails.
 *
 * KUnit prints KTAP on kernel lines: "    # Subtest: NAME" at indent 4 opens
 * suite kunit:NAME; its cases are the least indented result lines up to the
 * suite's own result line (deeper ones are parameterised subtests).
 *
 * Kernel splats (BUG:, WARNING:, Oops, KASAN:, ... see triggers[]) on kernel
 * lines are failing cases of suite "kernel" unless matched by --allow.  A
 * missing "harness: end" fails case "kernel boot", a module init could not
 * load ("harness: module NAME failed: ...") case "module NAME".
 *
 * A guest test that provokes a splat on purpose (LKDTM) first writes
 * "harness: expect splat: SUBSTRING" to /dev/kmsg.  Up to the next marker
 * line, a splat passes as "splat-expected: ..." if one of its lines
 * contains SUBSTRING (one provocation can report twice: KASAN, then the
 * Oops); a splat that does not still fails.  An announcement that no
 * splat matched before the next marker line is a failing case
 * "kernel (expected splat did not come: SUBSTRING)".
 *
 * With --expect-panic SUBSTRING the boot must end in a panic whose line
 * ("Kernel panic - not syncing: ...") contains SUBSTRING (a boot that tests
 * a panic, such as ubsan.report=panic): case "kernel expected_panic"
 * records it, that splat passes as expected, the suite running when it
 * came passes as "(ended by the expected panic)", and "kernel boot" needs
 * the panic instead of "harness: end".
 *
 * A guest line with a kernel line's timestamp inside it (the console mixed
 * the two) fails case "console kernel_line_inside_a_guest_line".
 *
 * With --release, --model and --image-sha256, suite "board" has cases
 * linux_version (the kernel version the log shows must be --release),
 * machine_model (the machine model the kernel read from the device tree
 * must be --model) and image_sha256, whose values are what was found.
 *
 * Results are appended to --results, one "arch config suite case result
 * seconds" line per case; failures are shown with context on stdout.
 * Values are appended to --values, one "arch config suite key value" line
 * each, in the order of the log: the suites' "# value KEY TEXT" lines,
 * then suite "board"'s (linux_version, machine_model, image_sha256). A
 * value is the rest of its line, spaces and all; case names never hold one.
 * Exit status: 0 all passed, 1 something failed, 2 usage or I/O error.
 */
#ifndef VERDICT_H
#define VERDICT_H

#define _POSIX_C_SOURCE 200809L
#include <stddef.h>

#include "protocol.h"

#define CTX_LINES	40	/* context lines shown per failure */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define GROW(arr, n, cap) do {						\
	if ((n) >= (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 64;				\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
} while (0)

/* util.c */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *xrealloc(void *p, size_t n);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *skip_ws(const char *s);
int indent(const char *s);
int word(const char *s, const char *w);
char *sanitize(char *s);
double dur(double from, double to);

/* log.c: the console log, one struct line per line */
enum kind { L_KERNEL, L_MARKER, L_RELAY };

struct line {
	char *raw;		/* the whole line, '\r' stripped */
	const char *text;	/* after the timestamp */
	double ts;		/* seconds; < 0 if the line has none */
	enum kind kind;
	char *suite;		/* L_RELAY: suite name */
	const char *body;	/* L_RELAY: the program's own line */
};

struct log {
	const char *path;
	struct line *lines;
	long nlines;
};

void log_read(struct log *log, const char *path);
/* the text of marker line @i after "harness:" */
const char *log_marker(const struct log *log, long i);
const char *log_kernel_field(const struct log *log, const char *prefix,
			     long *at);

/* report.c: the cases found, and what becomes of them */
enum result { R_PASS, R_FAIL, R_SKIP };
enum filter { F_ANY, F_KERNEL, F_SUITE };

struct tcase {
	char *suite, *name;
	enum result res;
	double secs;
	long from, to;		/* context: line index range, inclusive */
	enum filter filter;	/* which lines of the range are context */
	const char *fsuite;	/* F_SUITE: relayed lines of this suite */
	int tail;		/* show the last lines of the range, not first */
	char *note;		/* printed before the context, or NULL */
};

struct cases {
	struct tcase *v;
	long n, cap;
};

/* A value the log holds: a suite's "# value KEY TEXT", a board fact. */
struct value {
	char *suite, *key, *text;
};

struct values {
	struct value *v;
	long n, cap;
};

struct tcase *add_case(struct cases *cs, const char *suite, char *name,
		       enum result res, double secs);
void add_value(struct values *vs, const char *suite, const char *key,
	       size_t keylen, const char *text, size_t textlen);
void report_values(const struct values *vs, const char *arch,
		   const char *config, const char *path);
void set_ctx(struct tcase *c, long from, long to, enum filter f,
	     const char *fsuite);
int report(const struct cases *cs, const struct log *log, const char *arch,
	   const char *config, const char *results);

/* log.c: guest lines that a kernel line landed in */
void log_glued_lines(const struct log *log, struct cases *cs);

/* ktap.c: the TAP/KTAP grammar */
struct tap {
	long num;
	const char *name;
	size_t len;
	enum result res;
};

int parse_tap(const char *s, struct tap *t);
long parse_plan(const char *s);
char *tap_name(const struct tap *t);

/* ktap.c: the guest suites, from init's markers and relayed lines */
struct gsuite {
	char *name;
	long begin, end;	/* marker line indices, -1 if absent */
	long last;		/* last result line (or begin marker), -1 */
	double last_ts;
	char *status;		/* from the end marker, NULL if absent */
	long plan, nres, nfail;
};

struct suites {
	struct gsuite *v;
	long n, cap;
};

void suites_relay(struct suites *su, const struct log *log,
		  struct cases *cs, struct values *vs, long i);
void suites_marker(struct suites *su, const struct log *log,
		   struct cases *cs, long i);
void suites_finish(struct suites *su, const struct log *log,
		   struct cases *cs, char **want, long nwant, long panic_line);
char *suites_running(const struct suites *su, const struct log *log, long i,
		     char *note);

/* kunit.c: KUnit's suites on kernel lines */
struct kunit {
	long hdr;		/* open KUnit suite's "# Subtest:", or -1 */
	char *name;
	long top;		/* open top-level "KTAP version" line, or -1 */
	long plan, ran;		/* its plan (-1: none yet) and suites reported */
	long nresults;		/* KUnit results recorded */
	char **want;		/* --kunit-suite: suites the log must hold */
	long nwant;
	unsigned char *seen;	/* which of them it held */
};

void kunit_init(struct kunit *k);
void kunit_line(struct kunit *k, const struct log *log, struct cases *cs,
		long i);
void kunit_close_all(struct kunit *k, const struct log *log,
		     struct cases *cs, long end);
char *kunit_running(const struct kunit *k, char *note);
void kunit_want(struct kunit *k, const char *suite);
void kunit_finish(const struct kunit *k, const struct log *log,
		  struct cases *cs);

/* splat.c: kernel splats, announced ones, the expected panic */
struct splat {
	char **allow;		/* --allow */
	long nallow;
	const char *panic;	/* --expect-panic: the panic the boot ends in */
	long panic_line;	/* the line of that panic, -1 if absent */

	long scase;		/* open splat's case index, or -1 */
	long first, last, name;
	int count, score;
	long expect;		/* announcement the open splat must match, -1 */

	long xpend;		/* open "expect splat" line, or -1 */
	long xhit;		/* splats that matched it */
};

#define PANIC_LINE	"Kernel panic - not syncing:"

void splat_init(struct splat *s);
void splat_find_panic(struct splat *s, const struct log *log);
void splat_line(struct splat *s, const struct log *log, struct cases *cs,
		const struct suites *su, const struct kunit *k, long i);
void splat_close(struct splat *s, const struct log *log, struct cases *cs);
int splat_marker(struct splat *s, const struct log *log, struct cases *cs,
		 long i);
void splat_finish(struct splat *s, const struct log *log, struct cases *cs);
void splat_expected_panic(const struct splat *s, const struct log *log,
			  struct cases *cs);

/* known.c: known differences */
void apply_known(struct cases *cs, const char *path, const char *arch,
		 const char *config);

#endif
