/*
 * verdict: TAP 13 / KTAP result lines, and the guest suites whose output
 * init relays ("NAME| LINE") between its "harness: suite NAME begin" and
 * "harness: suite NAME end status=S" markers.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "verdict.h"

/* "ok N name # DIRECTIVE ..." or "not ok ..." at the start of @s */
int parse_tap(const char *s, struct tap *t)
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

long parse_plan(const char *s)
{
	if (strncmp(s, "1..", 3) || !isdigit((unsigned char)s[3]))
		return -1;
	return strtol(s + 3, NULL, 10);
}

char *tap_name(const struct tap *t)
{
	if (!t->len)
		return xprintf("(test %ld)", t->num);
	return xstrndup(t->name, t->len);
}

static struct gsuite *find_suite(const struct suites *su, const char *name)
{
	long i;

	for (i = su->n - 1; i >= 0; i--)
		if (!strcmp(su->v[i].name, name))
			return &su->v[i];
	return NULL;
}

static struct gsuite *new_suite(struct suites *su, const char *name)
{
	struct gsuite *s;

	GROW(su->v, su->n, su->cap);
	s = &su->v[su->n++];
	memset(s, 0, sizeof(*s));
	s->name = xstrndup(name, strlen(name));
	s->begin = s->end = s->last = -1;
	s->last_ts = -1;
	s->plan = -1;
	return s;
}

/* HARNESS_VALUE KEY TEXT: a value of the suite's for the host */
static int value_line(struct values *vs, const char *suite, const char *s)
{
	const char *key, *text;
	size_t keylen, len;

	if (strncmp(s, HARNESS_VALUE, strlen(HARNESS_VALUE)))
		return 0;
	key = skip_ws(s + strlen(HARNESS_VALUE));
	for (text = key; *text && !isspace((unsigned char)*text); text++)
		;
	if (text == key)
		return 0;
	keylen = (size_t)(text - key);
	text = skip_ws(text);
	len = strlen(text);
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	add_value(vs, suite, key, keylen, text, len);
	return 1;
}

/* A line relayed from a guest suite: its plan, a result or a value. */
void suites_relay(struct suites *su, const struct log *log,
		  struct cases *cs, struct values *vs, long i)
{
	const struct line *l = &log->lines[i];
	struct gsuite *s = find_suite(su, l->suite);
	struct tcase *c;
	struct tap t;
	long n;

	if (!s)
		s = new_suite(su, l->suite);
	if (s->last < 0 && s->last_ts < 0)
		s->last_ts = l->ts;	/* no begin marker: time from here */
	if (value_line(vs, s->name, l->body))
		return;
	n = parse_plan(l->body);
	if (n >= 0) {
		s->plan = (s->plan < 0 ? 0 : s->plan) + n;
		return;
	}
	if (!parse_tap(l->body, &t))	/* indented lines never parse */
		return;
	c = add_case(cs, s->name, tap_name(&t), t.res, dur(s->last_ts, l->ts));
	set_ctx(c, s->last + 1, i, F_SUITE, s->name);
	s->nres++;
	s->nfail += t.res == R_FAIL;
	s->last = i;
	s->last_ts = l->ts;
}

static void suite_end(struct cases *cs, struct gsuite *s, long i)
{
	int bad = s->status && s->status[0] && strcmp(s->status, "0");
	struct tcase *c;

	if (s->plan >= 0 && s->nres < s->plan) {
		c = add_case(cs, s->name, xprintf("(incomplete: %ld of %ld)",
						 s->nres, s->plan), R_FAIL, 0);
		set_ctx(c, s->last + 1, i, F_SUITE, s->name);
		if (bad)
			c->note = xprintf("suite exit status=%s", s->status);
		s->nfail++;
	}
	if (bad && !s->nfail) {
		c = add_case(cs, s->name, xprintf("(exit status=%s)", s->status),
			     R_FAIL, 0);
		set_ctx(c, s->last + 1, i, F_SUITE, s->name);
		s->nfail++;
	}
}

/* HARNESS_FMT_SUITE_BEGIN and HARNESS_FMT_SUITE_END */
void suites_marker(struct suites *su, const struct log *log,
		   struct cases *cs, long i)
{
	const char *p = log_marker(log, i), *q;
	struct gsuite *s;
	char *name;

	if (!word(p, HARNESS_SUITE))
		return;
	p = skip_ws(p + strlen(HARNESS_SUITE));
	for (q = p; *q && !isspace((unsigned char)*q); q++)
		;
	name = xstrndup(p, (size_t)(q - p));
	p = skip_ws(q);
	s = find_suite(su, name);
	if (word(p, HARNESS_BEGIN)) {
		if (!s || s->begin >= 0 || s->end >= 0)
			s = new_suite(su, name);
		s->begin = s->last = i;
		s->last_ts = log->lines[i].ts;
	} else if (word(p, HARNESS_END)) {
		if (!s || s->end >= 0)
			s = new_suite(su, name);
		s->end = i;
		p = strstr(p, HARNESS_STATUS);
		if (p) {
			p += strlen(HARNESS_STATUS);
			for (q = p; *q && !isspace((unsigned char)*q); q++)
				;
			s->status = xstrndup(p, (size_t)(q - p));
		}
		suite_end(cs, s, i);
	}
	free(name);
}

/*
 * After the last line: the suites of --suites (@want) that never began,
 * and those that began and never ended (unless the expected panic, at
 * line @panic_line, ended them).
 */
void suites_finish(struct suites *su, const struct log *log,
		   struct cases *cs, char **want, long nwant, long panic_line)
{
	struct gsuite *s;
	struct tcase *c;
	long i;

	for (i = 0; i < nwant; i++) {
		s = find_suite(su, want[i]);
		if (s && s->begin >= 0)
			continue;
		c = add_case(cs, want[i], xprintf("(did not run)"), R_FAIL, 0);
		c->note = xprintf("no \"" HARNESS_FMT_SUITE_BEGIN "\" in the log",
				  want[i]);
	}
	for (i = 0; i < su->n; i++) {
		s = &su->v[i];
		if (s->begin < 0 || s->end >= 0)
			continue;
		if (panic_line > s->begin) {
			add_case(cs, s->name, xprintf("(ended by the expected panic)"),
				 R_PASS, 0);
			continue;
		}
		c = add_case(cs, s->name, xprintf("(did not finish)"), R_FAIL, 0);
		set_ctx(c, s->begin, log->nlines - 1, F_SUITE, s->name);
	}
}

/*
 * The guest suites running at line @i, appended to @note (which is
 * freed): "during guest suite NAME, after its line: ..."
 */
char *suites_running(const struct suites *su, const struct log *log, long i,
		     char *note)
{
	const struct gsuite *s;
	char *old;
	long j, k;

	for (j = 0; j < su->n; j++) {
		s = &su->v[j];
		if (s->begin < 0 || s->end >= 0)
			continue;
		for (k = i - 1; k > s->begin; k--)
			if (log->lines[k].kind == L_RELAY &&
			    !strcmp(log->lines[k].suite, s->name))
				break;
		old = note;
		note = xprintf("%s%sduring guest suite %s, %s%.100s",
			       old ? old : "", old ? "; " : "", s->name,
			       k > s->begin ? "after its line: " : "before its output",
			       k > s->begin ? log->lines[k].body : "");
		free(old);
	}
	return note;
}
