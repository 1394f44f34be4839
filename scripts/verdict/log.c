/*
 * verdict: reading the console log.  Each line is split into its
 * timestamp and text and classified: a harness marker, a line relayed
 * from a guest suite ("NAME| ..."), or anything else (the kernel's).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "verdict.h"

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

	if (word(t, HARNESS_MARKER)) {
		l->kind = L_MARKER;
		return;
	}
	while (isalnum((unsigned char)*p) ||
	       (*p && strchr(HARNESS_NAME_CHARS, *p)))
		p++;
	/* "NAME| LINE", or "NAME|" if the line was empty */
	if (p > t && (!strncmp(p, HARNESS_RELAY_SEP, strlen(HARNESS_RELAY_SEP)) ||
		      (*p == HARNESS_RELAY_SEP[0] && !p[1]))) {
		l->kind = L_RELAY;
		l->suite = xstrndup(t, (size_t)(p - t));
		l->body = p[1] ? p + strlen(HARNESS_RELAY_SEP) : p + 1;
		return;
	}
	l->kind = L_KERNEL;
}

void log_read(struct log *log, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, i, n;
	ssize_t len;
	long capl = 0;
	struct line *l;

	log->path = path;
	if (!f)
		die("%s: %s", path, strerror(errno));
	while ((len = getline(&buf, &cap, f)) >= 0) {
		/* drop NUL bytes (serial noise), then the line ending */
		for (i = n = 0; i < (size_t)len; i++)
			if (buf[i])
				buf[n++] = buf[i];
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		GROW(log->lines, log->nlines, capl);
		l = &log->lines[log->nlines++];
		memset(l, 0, sizeof(*l));
		l->raw = xstrndup(buf, n);
		l->text = parse_ts(l->raw, &l->ts);
		classify(l);
	}
	if (ferror(f))
		die("%s: read error", path);
	free(buf);
	fclose(f);
}

/* the text of marker line @i after its first word */
const char *log_marker(const struct log *log, long i)
{
	return skip_ws(log->lines[i].text + strlen(HARNESS_MARKER));
}

/* the rest of the first kernel line that contains @prefix, or NULL */
const char *log_kernel_field(const struct log *log, const char *prefix,
			     long *at)
{
	const char *p;
	long i;

	for (i = 0; i < log->nlines; i++) {
		if (log->lines[i].kind != L_KERNEL)
			continue;
		p = strstr(log->lines[i].text, prefix);
		if (p) {
			*at = i;
			return p + strlen(prefix);
		}
	}
	return NULL;
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
void log_glued_lines(const struct log *log, struct cases *cs)
{
	long i, first = -1, n = 0;
	struct tcase *c;

	for (i = 0; i < log->nlines; i++) {
		const struct line *l = &log->lines[i];

		if ((l->kind == L_RELAY && has_timestamp(l->body)) ||
		    (l->kind == L_MARKER && has_timestamp(l->text))) {
			if (first < 0)
				first = i;
			n++;
		}
	}
	if (!n)
		return;
	c = add_case(cs, "console", xprintf("kernel_line_inside_a_guest_line"),
		     R_FAIL, 0);
	set_ctx(c, first, first, F_ANY, NULL);
	c->note = xprintf("%ld guest line(s) with a kernel line inside, the first shown: the verdict cannot read either",
			  n);
}
