/*
 * verdict: kernel splats.  A kernel line with a trigger (BUG:, WARNING:,
 * Oops, KASAN:, ... see triggers[]) opens a splat, a failing case of suite
 * "kernel" named after its most telling line, unless --allow matches it,
 * a guest test announced it ("harness: expect splat: SUBSTRING") or it is
 * the panic --expect-panic waits for.
 */
#include <ctype.h>
#include <string.h>

#include "verdict.h"

#define SPLAT_LINES	100	/* a splat without "end trace" stops here; an
				 * arm Oops (registers, stack) runs ~70 lines */
#define NAME_LEN	80	/* splat names are cut to this many bytes */

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

void splat_init(struct splat *s)
{
	s->panic_line = -1;
	s->scase = -1;
	s->expect = -1;
	s->xpend = -1;
}

/* The line of the panic --expect-panic names, before the pass over the log. */
void splat_find_panic(struct splat *s, const struct log *log)
{
	long i;

	for (i = 0; s->panic && s->panic_line < 0 && i < log->nlines; i++) {
		const char *p = strstr(log->lines[i].text, PANIC_LINE);

		if (log->lines[i].kind == L_KERNEL && p && strstr(p, s->panic))
			s->panic_line = i;
	}
}

static int trigger(const char *s)
{
	size_t i;

	for (i = ARRAY_SIZE(triggers); i-- > 0;)
		if (strstr(s, triggers[i]))
			return i >= NWEAK ? 2 : 1;
	return 0;
}

/* the SUBSTRING of the "harness: expect splat: SUBSTRING" line @i */
static const char *expect_text(const struct log *log, long i)
{
	return skip_ws(log_marker(log, i) + strlen(HARNESS_EXPECT_SPLAT));
}

/* Name the open splat and decide whether it fails. */
void splat_close(struct splat *s, const struct log *log, struct cases *cs)
{
	struct tcase *c;
	const char *name, *first;
	size_t len;
	long i, j;

	if (s->scase < 0)
		return;
	c = &cs->v[s->scase];
	name = skip_ws(log->lines[s->name].text);
	first = log->lines[s->first].text;
	len = strlen(name);
	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (len > NAME_LEN)
		len = NAME_LEN;
	for (i = 0; i < s->nallow; i++)
		if (strstr(name, s->allow[i]) || strstr(first, s->allow[i]))
			break;
	if (s->panic && s->panic_line >= s->first &&
	    s->panic_line <= s->last)
		i = -1;		/* the panic this boot is for */
	if (i >= 0 && s->expect >= 0 && i >= s->nallow) {
		for (j = s->first; j <= s->last; j++)
			if (log->lines[j].kind == L_KERNEL &&
			    strstr(log->lines[j].text, expect_text(log, s->expect)))
				break;
		if (j <= s->last) {
			i = -1;		/* announced: expected */
			s->xhit++;
		}
	}
	s->expect = -1;
	if (i < s->nallow) {
		c->name = xprintf("splat-expected: %.*s", (int)len, name);
		c->res = R_PASS;
	} else {
		c->name = xstrndup(name, len);
	}
	sanitize(c->name);
	c->to = s->last;
	s->scase = -1;
}

/* "=====...": KASAN, KCSAN, KFENCE and UBSAN frame their reports with it */
static int separator(const char *s)
{
	size_t n = strspn(s, "=");

	return n >= 10 && !s[n];
}

/* Kernel line @i; @su and @k say what was running if a splat starts. */
void splat_line(struct splat *s, const struct log *log, struct cases *cs,
		const struct suites *su, const struct kunit *k, long i)
{
	const char *text = log->lines[i].text;
	int score = trigger(text);
	struct tcase *c;

	/* a "cut here" always starts a new report */
	if (s->scase >= 0 && s->count < SPLAT_LINES && score != 1) {
		s->last = i;
		s->count++;
		if (score > s->score) {
			s->name = i;
			s->score = score;
		}
		if (strstr(text, "---[ end trace") || separator(text))
			splat_close(s, log, cs);
		return;
	}
	splat_close(s, log, cs);
	if (!score)
		return;
	c = add_case(cs, "kernel", NULL, R_FAIL, 0);
	set_ctx(c, i, i, F_KERNEL, NULL);
	c->tail = 0;
	c->note = kunit_running(k, suites_running(su, log, i, NULL));
	s->scase = cs->n - 1;
	s->expect = s->xpend;
	s->first = s->last = s->name = i;
	s->count = 1;
	s->score = score;
}

/* The announcement ends at line @upto: fail it if no splat matched it. */
static void expect_close(struct splat *s, const struct log *log,
			 struct cases *cs, long upto)
{
	long i = s->xpend;
	struct tcase *c;

	s->xpend = -1;
	if (i < 0 || s->xhit)
		return;
	c = add_case(cs, "kernel", xprintf("(expected splat did not come: %s)",
					   expect_text(log, i)), R_FAIL, 0);
	set_ctx(c, i, upto, F_ANY, NULL);
	c->tail = 0;
	c->note = xprintf("announced by a guest test; no splat up to the next marker line contained it");
}

/*
 * Marker line @i ends the announcement before it; returns 1 if it is an
 * announcement itself ("harness: expect splat: SUBSTRING").
 */
int splat_marker(struct splat *s, const struct log *log, struct cases *cs,
		 long i)
{
	const char *p = log_marker(log, i);

	expect_close(s, log, cs, i);
	if (!strncmp(p, HARNESS_EXPECT_SPLAT, strlen(HARNESS_EXPECT_SPLAT)) &&
	    *expect_text(log, i)) {
		s->xpend = i;
		s->xhit = 0;
		return 1;
	}
	return 0;
}

/* After the last line: close the open splat and announcement. */
void splat_finish(struct splat *s, const struct log *log, struct cases *cs)
{
	splat_close(s, log, cs);
	expect_close(s, log, cs, log->nlines - 1);
}

/* Case "kernel expected_panic": the panic --expect-panic asks for came. */
void splat_expected_panic(const struct splat *s, const struct log *log,
			  struct cases *cs)
{
	struct tcase *c;

	if (!s->panic)
		return;
	c = add_case(cs, "kernel", xprintf("expected_panic"),
		     s->panic_line >= 0 ? R_PASS : R_FAIL, 0);
	if (s->panic_line < 0) {
		set_ctx(c, log->nlines - CTX_LINES, log->nlines - 1, F_ANY,
			NULL);
		c->note = xprintf("no \"%s ...%s...\" in the log",
				  PANIC_LINE, s->panic);
	}
}
