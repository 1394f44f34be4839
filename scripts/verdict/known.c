/*
 * verdict: known differences (--known FILE, "SUITE CASE reason" lines).
 * A known difference is a case that fails for a reason written down beside
 * it, typically a filesystem that differs from the others.  It is reported
 * as skipped with its reason; if it passes, that is a failure, so that the
 * list cannot outlive what it describes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

void apply_known(struct cases *cs, const char *path, const char *arch,
		 const char *config)
{
	char *line = NULL, *suite, *name, *reason, *save;
	size_t cap = 0;
	struct tcase *c;
	FILE *f;
	long i;

	if (!path)
		return;
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "#\n")] = '\0';
		suite = strtok_r(line, " \t", &save);
		name = suite ? strtok_r(NULL, " \t", &save) : NULL;
		if (!name)
			continue;
		reason = strtok_r(NULL, "", &save);
		while (reason && isspace((unsigned char)*reason))
			reason++;
		for (i = 0; i < cs->n; i++) {
			c = &cs->v[i];
			if (strcmp(c->suite, suite) || strcmp(c->name, name))
				continue;
			if (c->res == R_FAIL) {
				c->res = R_SKIP;
				printf("KNOWN %s/%s %s %s: %s\n", arch, config,
				       suite, name, reason ? reason : "");
			} else if (c->res == R_PASS) {
				c->res = R_FAIL;
				c->note = xprintf("listed in %s as a known failure, but it passed: remove the entry",
						  path);
			}
		}
	}
	free(line);
	fclose(f);
}
