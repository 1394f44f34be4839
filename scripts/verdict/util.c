/* verdict: memory and string helpers */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("verdict: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xrealloc(NULL, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xprintf(const char *fmt, ...)
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

const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int indent(const char *s)
{
	return (int)(skip_ws(s) - s);
}

/* @s starts with the word @w (followed by whitespace or end of string) */
int word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && (!s[n] || isspace((unsigned char)s[n]));
}

/* whitespace in a results field becomes '_' */
char *sanitize(char *s)
{
	char *p;

	for (p = s; p && *p; p++)
		if (isspace((unsigned char)*p))
			*p = '_';
	return s;
}

double dur(double from, double to)
{
	return from >= 0 && to > from ? to - from : 0;
}
