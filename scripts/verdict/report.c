/*
 * verdict: the cases and values found in the log, and the report: one
 * results line per case, each failure with its context, a summary line;
 * one line per value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verdict.h"

#define SHOW_LEN	1000	/* context lines are cut (visibly) beyond this */

/* Takes ownership of @name; the returned pointer lives until the next add. */
struct tcase *add_case(struct cases *cs, const char *suite, char *name,
		       enum result res, double secs)
{
	struct tcase *c;

	GROW(cs->v, cs->n, cs->cap);
	c = &cs->v[cs->n++];
	memset(c, 0, sizeof(*c));
	c->suite = sanitize(xstrndup(suite, strlen(suite)));
	c->name = sanitize(name);
	c->res = res;
	c->secs = secs;
	c->to = -1;
	c->tail = 1;
	return c;
}

/* A value: @keylen bytes of @key, @textlen of @text. */
void add_value(struct values *vs, const char *suite, const char *key,
	       size_t keylen, const char *text, size_t textlen)
{
	struct value *val;

	GROW(vs->v, vs->n, vs->cap);
	val = &vs->v[vs->n++];
	val->suite = sanitize(xstrndup(suite, strlen(suite)));
	val->key = sanitize(xstrndup(key, keylen));
	val->text = xstrndup(text, textlen);
}

/* Append the values to @path: "arch config suite key text" lines. */
void report_values(const struct values *vs, const char *arch,
		   const char *config, const char *path)
{
	const struct value *val;
	FILE *f;
	long i;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (i = 0; i < vs->n; i++) {
		val = &vs->v[i];
		fprintf(f, "%s %s %s %s%s%s\n", arch, config, val->suite,
			val->key, *val->text ? " " : "", val->text);
	}
	if (ferror(f) | fclose(f))
		die("%s: write error", path);
}

void set_ctx(struct tcase *c, long from, long to, enum filter f,
	     const char *fsuite)
{
	c->from = from < 0 ? 0 : from;
	c->to = to;
	c->filter = f;
	c->fsuite = fsuite;
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

static void show_failure(const struct log *log, const char *arch,
			 const char *config, const struct tcase *c)
{
	long i, n = 0, skip = 0, shown = 0;
	size_t len;

	printf("FAIL %s/%s %s %s\n", arch, config, c->suite, c->name);
	if (c->note)
		printf("    (%s)\n", c->note);
	for (i = c->from; i <= c->to; i++)
		n += ctx_match(c, &log->lines[i]);
	if (c->tail && n > CTX_LINES)
		skip = n - CTX_LINES;
	for (i = c->from; i <= c->to && shown < CTX_LINES; i++) {
		if (!ctx_match(c, &log->lines[i]) || skip-- > 0)
			continue;
		len = strlen(log->lines[i].raw);
		if (len > SHOW_LEN)
			printf("    %.*s [... %zu more bytes]\n", SHOW_LEN,
			       log->lines[i].raw, len - SHOW_LEN);
		else
			printf("    %s\n", log->lines[i].raw);
		shown++;
	}
	putchar('\n');
}

int report(const struct cases *cs, const struct log *log, const char *arch,
	   const char *config, const char *results)
{
	static const char *const res[] = { "pass", "fail", "skip" };
	long i, count[3] = { 0, 0, 0 };
	const struct tcase *c;
	FILE *f = fopen(results, "a");

	if (!f)
		die("%s: %s", results, strerror(errno));
	for (i = 0; i < cs->n; i++) {
		c = &cs->v[i];
		fprintf(f, "%s %s %s %s %s %.3f\n", arch, config,
			c->suite, c->name, res[c->res], c->secs);
		count[c->res]++;
	}
	if (ferror(f) | fclose(f))
		die("%s: write error", results);

	for (i = 0; i < cs->n; i++)
		if (cs->v[i].res == R_FAIL)
			show_failure(log, arch, config, &cs->v[i]);
	printf("boot %s/%s: %ld passed, %ld failed, %ld skipped (log: %s)\n",
	       arch, config, count[R_PASS], count[R_FAIL], count[R_SKIP],
	       log->path);
	if (fflush(stdout) || ferror(stdout))
		die("stdout: write error");
	return count[R_FAIL] ? 1 : 0;
}
