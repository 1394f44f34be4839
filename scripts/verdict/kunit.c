/*
 * verdict: KUnit's KTAP on kernel lines.  "    # Subtest: NAME" at indent
 * KUNIT_INDENT opens suite kunit:NAME; its cases are the least indented
 * result lines up to the suite's own result line (deeper ones are
 * parameterised subtests).  A top-level "KTAP version" document's plan
 * says how many suites must report.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

#define KUNIT_INDENT	4	/* indent of KUnit's "# Subtest: SUITE" */

/* --kunit-suite SUITE: the kernel has SUITE (its option is set), so it must run. */
void kunit_want(struct kunit *k, const char *suite)
{
	k->want = xrealloc(k->want, (size_t)(k->nwant + 1) * sizeof(*k->want));
	k->seen = xrealloc(k->seen, (size_t)(k->nwant + 1));
	k->want[k->nwant] = xstrndup(suite, strlen(suite));
	k->seen[k->nwant++] = 0;
}

static void kunit_seen(struct kunit *k, const char *name)
{
	long i;

	for (i = 0; i < k->nwant; i++)
		if (!strcmp(k->want[i], name))
			k->seen[i] = 1;
}

/*
 * After the log: a suite the kernel was built with that never opened
 * ("# Subtest: SUITE") was lost whole, a loss no plan can show when its
 * module never loaded or the suite was filtered out.
 */
void kunit_finish(const struct kunit *k, const struct log *log,
		  struct cases *cs)
{
	struct tcase *c;
	long i;

	for (i = 0; i < k->nwant; i++) {
		if (k->seen[i])
			continue;
		c = add_case(cs, "kunit", xprintf("%s (never ran)", k->want[i]),
			     R_FAIL, 0);
		set_ctx(c, log->nlines - CTX_LINES, log->nlines - 1, F_KERNEL,
			NULL);
		c->note = xprintf("the kernel was built with KUnit suite %s (tests/*/kunit), but the log has no \"# Subtest: %s\"",
				  k->want[i], k->want[i]);
	}
}

void kunit_init(struct kunit *k)
{
	k->hdr = -1;
	k->top = -1;
}

/*
 * Close the open KUnit suite: lines hdr < i < @end are its body, @res is its
 * own result line or -1 if it never printed one.
 */
static void kunit_close(struct kunit *k, const struct log *log,
			struct cases *cs, long end, long res)
{
	long i, prev = k->hdr, ncase = 0, plan = -1, n;
	int min = INT_MAX, ind;
	const struct line *l;
	struct tcase *c;
	struct tap t;
	char *suite;

	if (k->hdr < 0)
		return;
	suite = xprintf("kunit:%s", k->name);
	for (i = k->hdr + 1; i < end; i++) {
		l = &log->lines[i];
		ind = indent(l->text);
		if (l->kind != L_KERNEL || ind < KUNIT_INDENT)
			continue;
		if (parse_tap(l->text + ind, &t))
			min = ind < min ? ind : min;
		else if (plan < 0 && min == INT_MAX)
			plan = parse_plan(l->text + ind);
	}
	for (i = k->hdr + 1; i < end; i++) {
		l = &log->lines[i];
		if (l->kind != L_KERNEL || indent(l->text) != min ||
		    !parse_tap(l->text + min, &t))
			continue;
		c = add_case(cs, suite, tap_name(&t), t.res,
			     dur(log->lines[prev].ts, l->ts));
		set_ctx(c, prev + 1, i, F_KERNEL, NULL);
		prev = i;
		ncase++;
	}
	n = ncase;
	if (!ncase && res >= 0) {
		l = &log->lines[res];
		parse_tap(l->text + indent(l->text), &t);
		c = add_case(cs, suite, xprintf("(suite)"), t.res,
			     dur(log->lines[k->hdr].ts, l->ts));
		set_ctx(c, k->hdr, res, F_KERNEL, NULL);
		n++;
	}
	if (plan > ncase && (ncase || res < 0)) {
		c = add_case(cs, suite, xprintf("(incomplete: %ld of %ld)",
					       ncase, plan), R_FAIL, 0);
		set_ctx(c, prev + 1, res >= 0 ? res : end - 1, F_KERNEL, NULL);
		c->note = xprintf("KUnit output stopped after %ld of %ld cases",
				  ncase, plan);
		n++;
	}
	k->nresults += n;
	free(suite);
	free(k->name);
	k->name = NULL;
	k->hdr = -1;
}

/*
 * Close the open top-level KTAP document (the suites built in, run at boot,
 * or those of one module as it loads): each suite its plan announced must
 * have reported, or one crashed or never started.
 */
static void kunit_top_close(struct kunit *k, struct cases *cs, long end)
{
	struct tcase *c;

	if (k->top < 0)
		return;
	if (k->plan > k->ran) {
		c = add_case(cs, "kunit", xprintf("(plan: %ld of %ld suites)",
						  k->ran, k->plan), R_FAIL, 0);
		set_ctx(c, end - CTX_LINES, end - 1, F_KERNEL, NULL);
		c->note = xprintf("KUnit's plan said %ld suites, %ld reported: a suite crashed or never started",
				  k->plan, k->ran);
		k->nresults++;
	}
	k->top = -1;
}

/* Close what is open before line @end (a marker, or the end of the log). */
void kunit_close_all(struct kunit *k, const struct log *log,
		     struct cases *cs, long end)
{
	kunit_close(k, log, cs, end, -1);
	kunit_top_close(k, cs, end);
}

void kunit_line(struct kunit *k, const struct log *log, struct cases *cs,
		long i)
{
	const char *s = log->lines[i].text, *p;
	int n = indent(s);
	size_t len;
	struct tap t;

	s += n;
	/*
	 * A module's suites print their header and plan before KUnit checks
	 * kunit.enable (lib/kunit/test.c): "kunit: disabled" then ends the
	 * document with nothing run, which is no crash.
	 */
	if (k->top >= 0 && !k->ran && k->hdr < 0 &&
	    !strcmp(s, "kunit: disabled")) {
		k->top = -1;
		return;
	}
	if (!n && !strncmp(s, "KTAP version", 12)) {
		kunit_top_close(k, cs, i);
		k->top = i;
		k->plan = -1;
		k->ran = 0;
		return;
	}
	if (!n && k->top >= 0 && k->plan < 0 && parse_plan(s) >= 0) {
		k->plan = parse_plan(s);
		return;
	}
	if (!n && k->top >= 0 && parse_tap(s, &t))
		k->ran++;
	if (!strncmp(s, "# Subtest:", 10)) {
		if (k->hdr >= 0 && n <= KUNIT_INDENT)
			kunit_close(k, log, cs, i, -1);
		if (k->hdr < 0 && n == KUNIT_INDENT) {
			p = skip_ws(s + 10);
			len = strlen(p);
			while (len && isspace((unsigned char)p[len - 1]))
				len--;
			k->hdr = i;
			k->name = xstrndup(p, len);
			kunit_seen(k, k->name);
		}
		return;
	}
	/* the suite's result: less indented, or same indent and its name */
	if (k->hdr >= 0 && parse_tap(s, &t) && (n < KUNIT_INDENT ||
	    (n == KUNIT_INDENT && t.len == strlen(k->name) &&
	     !strncmp(t.name, k->name, t.len))))
		kunit_close(k, log, cs, i, i);
}

/* The open KUnit suite, appended to @note (which is freed). */
char *kunit_running(const struct kunit *k, char *note)
{
	char *old = note;

	if (k->hdr < 0)
		return note;
	note = xprintf("%s%sduring KUnit suite %s", old ? old : "",
		       old ? "; " : "", k->name);
	free(old);
	return note;
}
