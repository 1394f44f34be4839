/*
 * verdict - decide pass/fail per test case from one guest boot's serial log
 *
 * Build: gcc -O2 -Wall -Wextra -o verdict scripts/verdict.c
 *
 * Log protocol.  Lines may end in "\r\n".  Kernel printk lines start with a
 * timestamp "[    1.234567] ".  The guest init prints timestamped markers:
 *
 *	harness: banner <free text>
 *	harness: suite NAME begin
 *	NAME| <line of the suite's program, relayed verbatim>
 *	harness: suite NAME end status=S seconds=X	(S: exit code, 128+signal
 *							 or "timeout")
 *	harness: end status=S				(last line before power-off)
 *	harness: expect splat: SUBSTRING		(a test is about to provoke
 *							 one, see below)
 *
 * A suite's relayed output is TAP 13 / KTAP: only top-level "ok N name" and
 * "not ok N name" lines (optional "# SKIP", "# TODO" or "# XFAIL" directive)
 * and the plan "1..N" count; indented (nested) lines are ignored.
 *
 * KUnit prints KTAP on kernel lines: "    # Subtest: NAME" at indent 4 opens
 * suite kunit:NAME; its cases are the least indented result lines up to the
 * suite's own result line (deeper ones are parameterised subtests).
 *
 * Kernel splats (BUG:, WARNING:, Oops, KASAN:, ... see triggers[]) on kernel
 * lines are failing cases of suite "kernel" unless matched by --allow.  A
 * missing "harness: end" fails case "kernel boot".
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
 * With --release, --model and --image-sha256, suite "board" records the
 * kernel version the log shows (it must be --release), the machine model
 * the kernel read from the device tree (it must be --model) and the image
 * checksum.
 *
 * Results are appended to --results, one "arch config suite case result
 * seconds" line per case; failures are shown with context on stdout.
 * Exit status: 0 all passed, 1 something failed, 2 usage or I/O error.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#define CTX_LINES	40	/* context lines shown per failure */
#define SPLAT_LINES	100	/* a splat without "end trace" stops here; an
				 * arm Oops (registers, stack) runs ~70 lines */
#define NAME_LEN	80	/* splat names are cut to this many bytes */
#define SHOW_LEN	1000	/* context lines are cut (visibly) beyond this */
#define KUNIT_INDENT	4	/* indent of KUnit's "# Subtest: SUITE" */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define GROW(arr, n, cap) do {						\
	if ((n) >= (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 64;				\
		(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));	\
	}								\
} while (0)

enum kind { L_KERNEL, L_MARKER, L_RELAY };
enum result { R_PASS, R_FAIL, R_SKIP };
enum filter { F_ANY, F_KERNEL, F_SUITE };

struct line {
	char *raw;		/* the whole line, '\r' stripped */
	const char *text;	/* after the timestamp */
	double ts;		/* seconds; < 0 if the line has none */
	enum kind kind;
	char *suite;		/* L_RELAY: suite name */
	const char *body;	/* L_RELAY: the program's own line */
};

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

struct gsuite {
	char *name;
	long begin, end;	/* marker line indices, -1 if absent */
	long last;		/* last result line (or begin marker), -1 */
	double last_ts;
	char *status;		/* from the end marker, NULL if absent */
	long plan, nres, nfail;
};

struct tap {
	long num;
	const char *name;
	size_t len;
	enum result res;
};

struct verdict {
	char *arch, *config;
	const char *log, *results;
	char **want;		/* --suites */
	long nwant;
	char **allow;		/* --allow */
	long nallow;
	const char *known;	/* --known FILE: "SUITE CASE reason" lines */
	int kunit;		/* --kunit */
	const char *release;	/* --release: the built kernel's version */
	const char *model;	/* --model: the board's device tree model */
	const char *image_sha;	/* --image-sha256: of the booted image */
	const char *panic;	/* --expect-panic: the panic the boot ends in */
	long panic_line;	/* the line of that panic, -1 if absent */

	struct line *lines;
	long nlines;
	struct tcase *cases;
	long ncases, capcases;
	struct gsuite *suites;
	long nsuites, capsuites;
	long nkunit;		/* KUnit results recorded */
	long boot_end;		/* "harness: end" line, -1 if absent */

	long khdr;		/* open KUnit suite's "# Subtest:", or -1 */
	char *kname;
	long ktop;		/* open top-level "KTAP version" line, or -1 */
	long kplan, kran;	/* its plan (-1: none yet) and suites reported */

	long scase;		/* open splat's case index, or -1 */
	long sfirst, slast, sname;
	int scount, sscore;
	long sexpect;		/* announcement the open splat must match, -1 */

	long xpend;		/* open "expect splat" line, or -1 */
	long xhit;		/* splats that matched it */
};

#define EXPECT_MARK	"expect splat:"
#define PANIC_LINE	"Kernel panic - not syncing:"

#define NWEAK	2
static const char *const triggers[] = {
	/* first the NWEAK cut-here lines: the weakest names */
	"------------[ cut here ]------------",	/* WARN(), BUG() */
	"8<--- cut here ---",			/* arm: faults, die() */
	"UBSAN:", "BUG:", "WARNING:", "KASAN:", "Oops", "Kernel panic",
	"general protection fault", "Unable to handle kernel", "kernel BUG at",
	"Internal error:", "Unhandled fault:",	/* arm die() and faults */
	"INFO: task ", "rcu: INFO:", "detected stalls",
	"possible recursive locking", "possible circular locking",
	"new suspected memory leak", "unreferenced object 0x",
	"Reboot failed -- System halted",	/* arm: no restart handler */
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("verdict: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = xrealloc(NULL, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vsnprintf failed");
	p = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int indent(const char *s)
{
	return (int)(skip_ws(s) - s);
}

/* @s starts with the word @w (followed by whitespace or end of string) */
static int word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && (!s[n] || isspace((unsigned char)s[n]));
}

/* whitespace in a results field becomes '_' */
static char *sanitize(char *s)
{
	char *p;

	for (p = s; p && *p; p++)
		if (isspace((unsigned char)*p))
			*p = '_';
	return s;
}

static double dur(double from, double to)
{
	return from >= 0 && to > from ? to - from : 0;
}

/* "[    1.234567] ", maybe with a "[    T1]" caller id; returns the text */
static const char *parse_ts(const char *s, double *ts)
{
	const char *p = s + 1, *q;
	char *end;
	double t;

	*ts = -1;
	if (*s != '[')
		return s;
	p = skip_ws(p);
	if (!isdigit((unsigned char)*p))
		return s;
	t = strtod(p, &end);
	if (*end != ']')
		return s;
	p = end + 1;
	if (*p == '[') {
		q = skip_ws(p + 1);
		if (*q == 'T' || *q == 'C') {
			for (q++; isdigit((unsigned char)*q); q++)
				;
			if (*q == ']')
				p = q + 1;
		}
	}
	if (*p == ' ')
		p++;
	*ts = t;
	return p;
}

static void classify(struct line *l)
{
	const char *t = l->text, *p = t;

	if (word(t, "harness:")) {
		l->kind = L_MARKER;
		return;
	}
	while (isalnum((unsigned char)*p) || (*p && strchr("_.+-@:/", *p)))
		p++;
	if (p > t && *p == '|' && (p[1] == ' ' || !p[1])) {
		l->kind = L_RELAY;
		l->suite = xstrndup(t, (size_t)(p - t));
		l->body = p[1] ? p + 2 : p + 1;
		return;
	}
	l->kind = L_KERNEL;
}

static void read_log(struct verdict *v)
{
	FILE *f = fopen(v->log, "r");
	char *buf = NULL;
	size_t cap = 0, i, n;
	ssize_t len;
	long capl = 0;
	struct line *l;

	if (!f)
		die("%s: %s", v->log, strerror(errno));
	while ((len = getline(&buf, &cap, f)) >= 0) {
		/* drop NUL bytes (serial noise), then the line ending */
		for (i = n = 0; i < (size_t)len; i++)
			if (buf[i])
				buf[n++] = buf[i];
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		GROW(v->lines, v->nlines, capl);
		l = &v->lines[v->nlines++];
		memset(l, 0, sizeof(*l));
		l->raw = xstrndup(buf, n);
		l->text = parse_ts(l->raw, &l->ts);
		classify(l);
	}
	if (ferror(f))
		die("%s: read error", v->log);
	free(buf);
	fclose(f);
}

/* "ok N name # DIRECTIVE ..." or "not ok ..." at the start of @s */
static int parse_tap(const char *s, struct tap *t)
{
	const char *p, *e;
	char *end;
	int ok;

	if (!strncmp(s, "ok", 2)) {
		ok = 1;
		p = s + 2;
	} else if (!strncmp(s, "not ok", 6)) {
		ok = 0;
		p = s + 6;
	} else {
		return 0;
	}
	if (*p && *p != ' ' && *p != '\t')
		return 0;
	p = skip_ws(p);
	t->num = -1;
	if (isdigit((unsigned char)*p)) {
		t->num = strtol(p, &end, 10);
		p = skip_ws(end);
	}
	if (*p == '-' && (p[1] == ' ' || !p[1]))
		p = skip_ws(p + 1);
	/* the name ends where a '#' starts a word: directive or comment */
	for (e = p; *e; e++)
		if (*e == '#' && (e == p || isspace((unsigned char)e[-1])))
			break;
	t->name = p;
	t->len = (size_t)(e - p);
	while (t->len && isspace((unsigned char)p[t->len - 1]))
		t->len--;
	t->res = ok ? R_PASS : R_FAIL;
	if (*e == '#') {
		e = skip_ws(e + 1);
		if (!strncasecmp(e, "SKIP", 4) || !strncasecmp(e, "TODO", 4))
			t->res = R_SKIP;
		else if (!strncasecmp(e, "XFAIL", 5))
			t->res = R_PASS;
	}
	return 1;
}

static long parse_plan(const char *s)
{
	if (strncmp(s, "1..", 3) || !isdigit((unsigned char)s[3]))
		return -1;
	return strtol(s + 3, NULL, 10);
}

static char *tap_name(const struct tap *t)
{
	if (!t->len)
		return xprintf("(test %ld)", t->num);
	return xstrndup(t->name, t->len);
}

/* Takes ownership of @name; the returned pointer lives until the next add. */
static struct tcase *add_case(struct verdict *v, const char *suite,
			      char *name, enum result res, double secs)
{
	struct tcase *c;

	GROW(v->cases, v->ncases, v->capcases);
	c = &v->cases[v->ncases++];
	memset(c, 0, sizeof(*c));
	c->suite = sanitize(xstrndup(suite, strlen(suite)));
	c->name = sanitize(name);
	c->res = res;
	c->secs = secs;
	c->to = -1;
	c->tail = 1;
	return c;
}

static void set_ctx(struct tcase *c, long from, long to, enum filter f,
		    const char *fsuite)
{
	c->from = from < 0 ? 0 : from;
	c->to = to;
	c->filter = f;
	c->fsuite = fsuite;
}

static struct gsuite *find_suite(struct verdict *v, const char *name)
{
	long i;

	for (i = v->nsuites - 1; i >= 0; i--)
		if (!strcmp(v->suites[i].name, name))
			return &v->suites[i];
	return NULL;
}

static struct gsuite *new_suite(struct verdict *v, const char *name)
{
	struct gsuite *s;

	GROW(v->suites, v->nsuites, v->capsuites);
	s = &v->suites[v->nsuites++];
	memset(s, 0, sizeof(*s));
	s->name = xstrndup(name, strlen(name));
	s->begin = s->end = s->last = -1;
	s->last_ts = -1;
	s->plan = -1;
	return s;
}

static void relay_line(struct verdict *v, long i)
{
	struct line *l = &v->lines[i];
	struct gsuite *s = find_suite(v, l->suite);
	struct tcase *c;
	struct tap t;
	long n;

	if (!s)
		s = new_suite(v, l->suite);
	if (s->last < 0 && s->last_ts < 0)
		s->last_ts = l->ts;	/* no begin marker: time from here */
	n = parse_plan(l->body);
	if (n >= 0) {
		s->plan = (s->plan < 0 ? 0 : s->plan) + n;
		return;
	}
	if (!parse_tap(l->body, &t))	/* indented lines never parse */
		return;
	c = add_case(v, s->name, tap_name(&t), t.res, dur(s->last_ts, l->ts));
	set_ctx(c, s->last + 1, i, F_SUITE, s->name);
	s->nres++;
	s->nfail += t.res == R_FAIL;
	s->last = i;
	s->last_ts = l->ts;
}

static void suite_end(struct verdict *v, struct gsuite *s, long i)
{
	int bad = s->status && s->status[0] && strcmp(s->status, "0");
	struct tcase *c;

	if (s->plan >= 0 && s->nres < s->plan) {
		c = add_case(v, s->name, xprintf("(incomplete: %ld of %ld)",
					       s->nres, s->plan), R_FAIL, 0);
		set_ctx(c, s->last + 1, i, F_SUITE, s->name);
		if (bad)
			c->note = xprintf("suite exit status=%s", s->status);
		s->nfail++;
	}
	if (bad && !s->nfail) {
		c = add_case(v, s->name, xprintf("(exit status=%s)", s->status),
			     R_FAIL, 0);
		set_ctx(c, s->last + 1, i, F_SUITE, s->name);
		s->nfail++;
	}
}

/* the SUBSTRING of the "harness: expect splat: SUBSTRING" line @i */
static const char *expect_text(const struct verdict *v, long i)
{
	const char *p = skip_ws(v->lines[i].text + strlen("harness:"));

	return skip_ws(p + strlen(EXPECT_MARK));
}

/* The announcement ends at line @upto: fail it if no splat matched it. */
static void expect_close(struct verdict *v, long upto)
{
	long i = v->xpend;
	struct tcase *c;

	v->xpend = -1;
	if (i < 0 || v->xhit)
		return;
	c = add_case(v, "kernel", xprintf("(expected splat did not come: %s)",
					  expect_text(v, i)), R_FAIL, 0);
	set_ctx(c, i, upto, F_ANY, NULL);
	c->tail = 0;
	c->note = xprintf("announced by a guest test; no splat up to the next marker line contained it");
}

static void marker_line(struct verdict *v, long i)
{
	const char *p = skip_ws(v->lines[i].text + strlen("harness:")), *q;
	struct gsuite *s;
	struct tcase *c;
	char *name;

	expect_close(v, i);
	if (!strncmp(p, EXPECT_MARK, strlen(EXPECT_MARK)) &&
	    *expect_text(v, i)) {
		v->xpend = i;
		v->xhit = 0;
		return;
	}
	if (word(p, "end")) {
		if (v->boot_end < 0)
			v->boot_end = i;
		return;
	}
	if (word(p, "module")) {
		/* "module NAME loaded" or "module NAME failed: ERROR" */
		p = skip_ws(p + strlen("module"));
		for (q = p; *q && !isspace((unsigned char)*q); q++)
			;
		name = xstrndup(p, (size_t)(q - p));
		p = skip_ws(q);
		c = add_case(v, "module", xprintf("%s", name),
			     word(p, "loaded") ? R_PASS : R_FAIL, 0);
		if (c->res == R_FAIL) {
			set_ctx(c, i, i, F_ANY, NULL);
			c->note = xprintf("the init could not load module %s", name);
		}
		free(name);
		return;
	}
	if (!word(p, "suite"))
		return;
	p = skip_ws(p + strlen("suite"));
	for (q = p; *q && !isspace((unsigned char)*q); q++)
		;
	name = xstrndup(p, (size_t)(q - p));
	p = skip_ws(q);
	s = find_suite(v, name);
	if (word(p, "begin")) {
		if (!s || s->begin >= 0 || s->end >= 0)
			s = new_suite(v, name);
		s->begin = s->last = i;
		s->last_ts = v->lines[i].ts;
	} else if (word(p, "end")) {
		if (!s || s->end >= 0)
			s = new_suite(v, name);
		s->end = i;
		p = strstr(p, "status=");
		if (p) {
			p += strlen("status=");
			for (q = p; *q && !isspace((unsigned char)*q); q++)
				;
			s->status = xstrndup(p, (size_t)(q - p));
		}
		suite_end(v, s, i);
	}
	free(name);
}

/*
 * Close the open KUnit suite: lines khdr < i < @end are its body, @res is its
 * own result line or -1 if it never printed one.
 */
static void kunit_close(struct verdict *v, long end, long res)
{
	long i, prev = v->khdr, ncase = 0, plan = -1, n;
	int min = INT_MAX, ind;
	struct tcase *c;
	struct line *l;
	struct tap t;
	char *suite;

	if (v->khdr < 0)
		return;
	suite = xprintf("kunit:%s", v->kname);
	for (i = v->khdr + 1; i < end; i++) {
		l = &v->lines[i];
		ind = indent(l->text);
		if (l->kind != L_KERNEL || ind < KUNIT_INDENT)
			continue;
		if (parse_tap(l->text + ind, &t))
			min = ind < min ? ind : min;
		else if (plan < 0 && min == INT_MAX)
			plan = parse_plan(l->text + ind);
	}
	for (i = v->khdr + 1; i < end; i++) {
		l = &v->lines[i];
		if (l->kind != L_KERNEL || indent(l->text) != min ||
		    !parse_tap(l->text + min, &t))
			continue;
		c = add_case(v, suite, tap_name(&t), t.res,
			     dur(v->lines[prev].ts, l->ts));
		set_ctx(c, prev + 1, i, F_KERNEL, NULL);
		prev = i;
		ncase++;
	}
	n = ncase;
	if (!ncase && res >= 0) {
		l = &v->lines[res];
		parse_tap(l->text + indent(l->text), &t);
		c = add_case(v, suite, xprintf("(suite)"), t.res,
			     dur(v->lines[v->khdr].ts, l->ts));
		set_ctx(c, v->khdr, res, F_KERNEL, NULL);
		n++;
	}
	if (plan > ncase && (ncase || res < 0)) {
		c = add_case(v, suite, xprintf("(incomplete: %ld of %ld)",
					      ncase, plan), R_FAIL, 0);
		set_ctx(c, prev + 1, res >= 0 ? res : end - 1, F_KERNEL, NULL);
		c->note = xprintf("KUnit output stopped after %ld of %ld cases",
				  ncase, plan);
		n++;
	}
	v->nkunit += n;
	free(suite);
	free(v->kname);
	v->kname = NULL;
	v->khdr = -1;
}

/*
 * Close the open top-level KTAP document (the suites built in, run at boot,
 * or those of one module as it loads): each suite its plan announced must
 * have reported, or one crashed or never started.
 */
static void kunit_top_close(struct verdict *v, long end)
{
	struct tcase *c;

	if (v->ktop < 0)
		return;
	if (v->kplan > v->kran) {
		c = add_case(v, "kunit", xprintf("(plan: %ld of %ld suites)",
						 v->kran, v->kplan), R_FAIL, 0);
		set_ctx(c, end - CTX_LINES, end - 1, F_KERNEL, NULL);
		c->note = xprintf("KUnit's plan said %ld suites, %ld reported: a suite crashed or never started",
				  v->kplan, v->kran);
		v->nkunit++;
	}
	v->ktop = -1;
}

static void kunit_line(struct verdict *v, long i)
{
	const char *s = v->lines[i].text, *p;
	int n = indent(s);
	size_t len;
	struct tap t;

	s += n;
	if (!n && !strncmp(s, "KTAP version", 12)) {
		kunit_top_close(v, i);
		v->ktop = i;
		v->kplan = -1;
		v->kran = 0;
		return;
	}
	if (!n && v->ktop >= 0 && v->kplan < 0 && parse_plan(s) >= 0) {
		v->kplan = parse_plan(s);
		return;
	}
	if (!n && v->ktop >= 0 && parse_tap(s, &t))
		v->kran++;
	if (!strncmp(s, "# Subtest:", 10)) {
		if (v->khdr >= 0 && n <= KUNIT_INDENT)
			kunit_close(v, i, -1);
		if (v->khdr < 0 && n == KUNIT_INDENT) {
			p = skip_ws(s + 10);
			len = strlen(p);
			while (len && isspace((unsigned char)p[len - 1]))
				len--;
			v->khdr = i;
			v->kname = xstrndup(p, len);
		}
		return;
	}
	/* the suite's result: less indented, or same indent and its name */
	if (v->khdr >= 0 && parse_tap(s, &t) && (n < KUNIT_INDENT ||
	    (n == KUNIT_INDENT && t.len == strlen(v->kname) &&
	     !strncmp(t.name, v->kname, t.len))))
		kunit_close(v, i, i);
}

/* what was running when a splat started at line @i */
static char *attribution(struct verdict *v, long i)
{
	struct gsuite *s;
	char *note = NULL, *old;
	long j, k;

	for (j = 0; j < v->nsuites; j++) {
		s = &v->suites[j];
		if (s->begin < 0 || s->end >= 0)
			continue;
		for (k = i - 1; k > s->begin; k--)
			if (v->lines[k].kind == L_RELAY &&
			    !strcmp(v->lines[k].suite, s->name))
				break;
		old = note;
		note = xprintf("%s%sduring guest suite %s, %s%.100s",
			       old ? old : "", old ? "; " : "", s->name,
			       k > s->begin ? "after its line: " : "before its output",
			       k > s->begin ? v->lines[k].body : "");
		free(old);
	}
	if (v->khdr >= 0) {
		old = note;
		note = xprintf("%s%sduring KUnit suite %s", old ? old : "",
			       old ? "; " : "", v->kname);
		free(old);
	}
	return note;
}

static int trigger(const char *s)
{
	size_t i;

	for (i = ARRAY_SIZE(triggers); i-- > 0;)
		if (strstr(s, triggers[i]))
			return i >= NWEAK ? 2 : 1;
	return 0;
}

static void splat_close(struct verdict *v)
{
	struct tcase *c = &v->cases[v->scase];
	const char *name = skip_ws(v->lines[v->sname].text);
	const char *first = v->lines[v->sfirst].text;
	size_t len = strlen(name);
	long i, j;

	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (len > NAME_LEN)
		len = NAME_LEN;
	for (i = 0; i < v->nallow; i++)
		if (strstr(name, v->allow[i]) || strstr(first, v->allow[i]))
			break;
	if (v->panic && v->panic_line >= v->sfirst &&
	    v->panic_line <= v->slast)
		i = -1;		/* the panic this boot is for */
	if (i >= 0 && v->sexpect >= 0 && i >= v->nallow) {
		for (j = v->sfirst; j <= v->slast; j++)
			if (v->lines[j].kind == L_KERNEL &&
			    strstr(v->lines[j].text, expect_text(v, v->sexpect)))
				break;
		if (j <= v->slast) {
			i = -1;		/* announced: expected */
			v->xhit++;
		}
	}
	v->sexpect = -1;
	if (i < v->nallow) {
		c->name = xprintf("splat-expected: %.*s", (int)len, name);
		c->res = R_PASS;
	} else {
		c->name = xstrndup(name, len);
	}
	sanitize(c->name);
	c->to = v->slast;
	v->scase = -1;
}

/* "=====...": KASAN, KCSAN, KFENCE and UBSAN frame their reports with it */
static int separator(const char *s)
{
	size_t n = strspn(s, "=");

	return n >= 10 && !s[n];
}

static void splat_line(struct verdict *v, long i)
{
	const char *text = v->lines[i].text;
	int score = trigger(text);
	struct tcase *c;

	/* a "cut here" always starts a new report */
	if (v->scase >= 0 && v->scount < SPLAT_LINES && score != 1) {
		v->slast = i;
		v->scount++;
		if (score > v->sscore) {
			v->sname = i;
			v->sscore = score;
		}
		if (strstr(text, "---[ end trace") || separator(text))
			splat_close(v);
		return;
	}
	if (v->scase >= 0)
		splat_close(v);
	if (!score)
		return;
	c = add_case(v, "kernel", NULL, R_FAIL, 0);
	set_ctx(c, i, i, F_KERNEL, NULL);
	c->tail = 0;
	c->note = attribution(v, i);
	v->scase = v->ncases - 1;
	v->sexpect = v->xpend;
	v->sfirst = v->slast = v->sname = i;
	v->scount = 1;
	v->sscore = score;
}

/* the rest of the first kernel line that starts with @prefix, or NULL */
static const char *kernel_field(const struct verdict *v, const char *prefix,
				long *at)
{
	const char *p;
	long i;

	for (i = 0; i < v->nlines; i++) {
		if (v->lines[i].kind != L_KERNEL)
			continue;
		p = strstr(v->lines[i].text, prefix);
		if (p) {
			*at = i;
			return p + strlen(prefix);
		}
	}
	return NULL;
}

/*
 * Suite "board": which kernel booted (its version must be the one built,
 * --release), the machine model the kernel read from the device tree
 * (must be the board's, --model) and the image's checksum (--image-sha256,
 * recorded for the comparison across boards of one build).
 */
static void board_cases(struct verdict *v)
{
	const char *p;
	struct tcase *c;
	long at = 0;
	size_t n;

	if (v->release) {
		p = kernel_field(v, "Linux version ", &at);
		n = p ? strcspn(p, " ") : 0;
		c = add_case(v, "board", xprintf("linux_version=%.*s", (int)n,
						 p ? p : ""),
			     p && n == strlen(v->release) &&
			     !strncmp(p, v->release, n) ? R_PASS : R_FAIL, 0);
		set_ctx(c, at, at, F_KERNEL, NULL);
		if (c->res == R_FAIL)
			c->note = xprintf("the kernel built is %s", v->release);
	}
	if (v->model) {
		p = kernel_field(v, "Machine model: ", &at);
		n = p ? strlen(p) : 0;
		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		c = add_case(v, "board", xprintf("machine_model=%.*s", (int)n,
						 p ? p : ""),
			     p && n == strlen(v->model) &&
			     !strncmp(p, v->model, n) ? R_PASS : R_FAIL, 0);
		set_ctx(c, at, at, F_KERNEL, NULL);
		if (c->res == R_FAIL)
			c->note = xprintf("the board's device tree model is \"%s\"",
					  v->model);
	}
	if (v->image_sha)
		add_case(v, "board", xprintf("image_sha256=%s", v->image_sha),
			 R_PASS, 0);
}

/* "[    1.234567]" somewhere in @s: a kernel line's start */
static int has_timestamp(const char *s)
{
	const char *p, *q;
	size_t n;

	for (p = strchr(s, '['); p; p = strchr(p + 1, '[')) {
		q = p + 1 + strspn(p + 1, " ");
		n = strspn(q, "0123456789");
		if (!n || q[n] != '.')
			continue;
		q += n + 1;
		n = strspn(q, "0123456789");
		if (n == 6 && q[n] == ']')
			return 1;
	}
	return 0;
}

/*
 * The console interleaves the bytes user space writes with printk records;
 * a kernel line that landed inside a guest line is lost to the verdict
 * (a splat's lines, an announcement) and the guest line is cut.  init
 * relays through /dev/kmsg so that it cannot happen; if it does, say so.
 */
static void glued_lines(struct verdict *v)
{
	long i, first = -1, n = 0;
	struct tcase *c;

	for (i = 0; i < v->nlines; i++) {
		const struct line *l = &v->lines[i];

		if ((l->kind == L_RELAY && has_timestamp(l->body)) ||
		    (l->kind == L_MARKER && has_timestamp(l->text))) {
			if (first < 0)
				first = i;
			n++;
		}
	}
	if (!n)
		return;
	c = add_case(v, "console", xprintf("kernel_line_inside_a_guest_line"),
		     R_FAIL, 0);
	set_ctx(c, first, first, F_ANY, NULL);
	c->note = xprintf("%ld guest line(s) with a kernel line inside, the first shown: the verdict cannot read either",
			  n);
}

static void analyse(struct verdict *v)
{
	struct gsuite *s;
	struct tcase *c;
	long i, end;

	for (i = 0; v->panic && v->panic_line < 0 && i < v->nlines; i++) {
		const char *p = strstr(v->lines[i].text, PANIC_LINE);

		if (v->lines[i].kind == L_KERNEL && p && strstr(p, v->panic))
			v->panic_line = i;
	}
	for (i = 0; i < v->nlines; i++) {
		switch (v->lines[i].kind) {
		case L_RELAY:
			relay_line(v, i);
			break;
		case L_MARKER:
			if (v->scase >= 0)
				splat_close(v);
			kunit_close(v, i, -1);
			kunit_top_close(v, i);
			marker_line(v, i);
			break;
		case L_KERNEL:
			splat_line(v, i);
			kunit_line(v, i);
			break;
		}
	}
	if (v->scase >= 0)
		splat_close(v);
	expect_close(v, v->nlines - 1);
	kunit_close(v, v->nlines, -1);
	kunit_top_close(v, v->nlines);

	for (i = 0; i < v->nwant; i++) {
		s = find_suite(v, v->want[i]);
		if (s && s->begin >= 0)
			continue;
		c = add_case(v, v->want[i], xprintf("(did not run)"), R_FAIL, 0);
		c->note = xprintf("no \"harness: suite %s begin\" in the log",
				  v->want[i]);
	}
	for (i = 0; i < v->nsuites; i++) {
		s = &v->suites[i];
		if (s->begin < 0 || s->end >= 0)
			continue;
		if (v->panic_line > s->begin) {
			add_case(v, s->name, xprintf("(ended by the expected panic)"),
				 R_PASS, 0);
			continue;
		}
		c = add_case(v, s->name, xprintf("(did not finish)"), R_FAIL, 0);
		set_ctx(c, s->begin, v->nlines - 1, F_SUITE, s->name);
	}
	board_cases(v);
	glued_lines(v);
	if (v->kunit && !v->nkunit) {
		c = add_case(v, "kunit", xprintf("(none)"), R_FAIL, 0);
		c->note = xprintf("no KUnit results in the log");
	}
	if (v->panic) {
		c = add_case(v, "kernel", xprintf("expected_panic"),
			     v->panic_line >= 0 ? R_PASS : R_FAIL, 0);
		if (v->panic_line < 0) {
			set_ctx(c, v->nlines - CTX_LINES, v->nlines - 1, F_ANY,
				NULL);
			c->note = xprintf("no \"%s ...%s...\" in the log",
					  PANIC_LINE, v->panic);
		}
	}
	/* a boot ends at "harness: end", or at the panic it expects */
	end = v->panic ? v->panic_line : v->boot_end;
	if (end >= 0) {
		add_case(v, "kernel", xprintf("boot"), R_PASS,
			 dur(0, v->lines[end].ts));
	} else {
		for (i = v->nlines - 1; i > 0 && v->lines[i].ts < 0; i--)
			;
		c = add_case(v, "kernel", xprintf("boot"), R_FAIL,
			     v->nlines ? dur(0, v->lines[i].ts) : 0);
		set_ctx(c, v->nlines - CTX_LINES, v->nlines - 1, F_ANY, NULL);
		c->note = v->panic ?
			xprintf("the boot did not end in the expected panic") :
			xprintf("no \"harness: end\": crash, panic or timeout");
	}
}

static int ctx_match(const struct tcase *c, const struct line *l)
{
	switch (c->filter) {
	case F_KERNEL:
		return l->kind == L_KERNEL;
	case F_SUITE:
		return l->kind == L_MARKER ||
		       (l->kind == L_RELAY && !strcmp(l->suite, c->fsuite));
	default:
		return 1;
	}
}

static void show_failure(const struct verdict *v, const struct tcase *c)
{
	long i, n = 0, skip = 0, shown = 0;
	size_t len;

	printf("FAIL %s/%s %s %s\n", v->arch, v->config, c->suite, c->name);
	if (c->note)
		printf("    (%s)\n", c->note);
	for (i = c->from; i <= c->to; i++)
		n += ctx_match(c, &v->lines[i]);
	if (c->tail && n > CTX_LINES)
		skip = n - CTX_LINES;
	for (i = c->from; i <= c->to && shown < CTX_LINES; i++) {
		if (!ctx_match(c, &v->lines[i]) || skip-- > 0)
			continue;
		len = strlen(v->lines[i].raw);
		if (len > SHOW_LEN)
			printf("    %.*s [... %zu more bytes]\n", SHOW_LEN,
			       v->lines[i].raw, len - SHOW_LEN);
		else
			printf("    %s\n", v->lines[i].raw);
		shown++;
	}
	putchar('\n');
}

/*
 * A known difference (--known) is a case that fails for a reason written
 * down beside it, typically a filesystem that differs from the others. It
 * is reported as skipped with its reason; if it passes, that is a failure,
 * so that the list cannot outlive what it describes.
 */
static void apply_known(struct verdict *v)
{
	char *line = NULL, *suite, *name, *reason, *save;
	size_t cap = 0;
	struct tcase *c;
	FILE *f;
	long i;

	if (!v->known)
		return;
	f = fopen(v->known, "r");
	if (!f)
		die("%s: %s", v->known, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "#\n")] = '\0';
		suite = strtok_r(line, " \t", &save);
		name = suite ? strtok_r(NULL, " \t", &save) : NULL;
		if (!name)
			continue;
		reason = strtok_r(NULL, "", &save);
		while (reason && isspace((unsigned char)*reason))
			reason++;
		for (i = 0; i < v->ncases; i++) {
			c = &v->cases[i];
			if (strcmp(c->suite, suite) || strcmp(c->name, name))
				continue;
			if (c->res == R_FAIL) {
				c->res = R_SKIP;
				printf("KNOWN %s/%s %s %s: %s\n", v->arch, v->config,
				       suite, name, reason ? reason : "");
			} else if (c->res == R_PASS) {
				c->res = R_FAIL;
				c->note = xprintf("listed in %s as a known failure, but it passed: remove the entry",
						  v->known);
			}
		}
	}
	free(line);
	fclose(f);
}

static int report(const struct verdict *v)
{
	static const char *const res[] = { "pass", "fail", "skip" };
	long i, count[3] = { 0, 0, 0 };
	const struct tcase *c;
	FILE *f = fopen(v->results, "a");

	if (!f)
		die("%s: %s", v->results, strerror(errno));
	for (i = 0; i < v->ncases; i++) {
		c = &v->cases[i];
		fprintf(f, "%s %s %s %s %s %.3f\n", v->arch, v->config,
			c->suite, c->name, res[c->res], c->secs);
		count[c->res]++;
	}
	if (ferror(f) | fclose(f))
		die("%s: write error", v->results);

	for (i = 0; i < v->ncases; i++)
		if (v->cases[i].res == R_FAIL)
			show_failure(v, &v->cases[i]);
	printf("boot %s/%s: %ld passed, %ld failed, %ld skipped (log: %s)\n",
	       v->arch, v->config, count[R_PASS], count[R_FAIL], count[R_SKIP],
	       v->log);
	if (fflush(stdout) || ferror(stdout))
		die("stdout: write error");
	return count[R_FAIL] ? 1 : 0;
}

static void usage(FILE *f, int status)
{
	fputs("usage: verdict --arch ARCH --config CONFIG --log FILE --results FILE\n"
	      "               [--suites a,b,c] [--kunit] [--allow SUBSTRING]...\n"
	      "               [--known FILE] [--release VERSION] [--model MODEL]\n"
	      "               [--image-sha256 HEX] [--expect-panic SUBSTRING]\n",
	      f);
	exit(status);
}

/* "--opt VALUE" or "--opt=VALUE"; NULL if argv[*i] is not @opt */
static const char *optval(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];

	if (strncmp(a, opt, n) || (a[n] && a[n] != '='))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (*i + 1 >= argc)
		usage(stderr, 2);
	return argv[++*i];
}

static void add_suites(struct verdict *v, const char *list)
{
	const char *p = list, *q;

	while (*p) {
		q = p + strcspn(p, ",");
		if (q > p) {
			v->want = xrealloc(v->want, (size_t)(v->nwant + 1) *
					   sizeof(*v->want));
			v->want[v->nwant++] = xstrndup(p, (size_t)(q - p));
		}
		p = *q ? q + 1 : q;
	}
}

int main(int argc, char **argv)
{
	struct verdict v = { .khdr = -1, .ktop = -1, .scase = -1, .boot_end = -1,
			     .sexpect = -1, .xpend = -1, .panic_line = -1 };
	const char *val;
	int i;

	for (i = 1; i < argc; i++) {
		if ((val = optval(argc, argv, &i, "--arch"))) {
			v.arch = sanitize(xstrndup(val, strlen(val)));
		} else if ((val = optval(argc, argv, &i, "--config"))) {
			v.config = sanitize(xstrndup(val, strlen(val)));
		} else if ((val = optval(argc, argv, &i, "--log"))) {
			v.log = val;
		} else if ((val = optval(argc, argv, &i, "--results"))) {
			v.results = val;
		} else if ((val = optval(argc, argv, &i, "--suites"))) {
			add_suites(&v, val);
		} else if ((val = optval(argc, argv, &i, "--known"))) {
			v.known = val;
		} else if ((val = optval(argc, argv, &i, "--allow"))) {
			v.allow = xrealloc(v.allow, (size_t)(v.nallow + 1) *
					   sizeof(*v.allow));
			v.allow[v.nallow++] = (char *)val;
		} else if ((val = optval(argc, argv, &i, "--release"))) {
			v.release = val;
		} else if ((val = optval(argc, argv, &i, "--model"))) {
			v.model = val;
		} else if ((val = optval(argc, argv, &i, "--image-sha256"))) {
			v.image_sha = val;
		} else if ((val = optval(argc, argv, &i, "--expect-panic"))) {
			v.panic = val;
		} else if (!strcmp(argv[i], "--kunit")) {
			v.kunit = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout, 0);
		} else {
			fprintf(stderr, "verdict: unknown argument: %s\n", argv[i]);
			usage(stderr, 2);
		}
	}
	if (!v.arch || !*v.arch || !v.config || !*v.config || !v.log ||
	    !v.results)
		usage(stderr, 2);

	read_log(&v);
	analyse(&v);
	apply_known(&v);
	return report(&v);
}
