/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/ubsan programs: where UBSAN's run-time control
 * (patches 0032-0033) lives, its counters, and the reports in the kernel
 * log.
 */
#ifndef UBSAN_H
#define UBSAN_H

#include <stdio.h>
#include <string.h>

#include "guest.h"

#define UBSAN_PARAMS	"/sys/module/ubsan/parameters/"
#define UBSAN_DEBUGFS	"/sys/kernel/debug/ubsan/"
/* The source of LKDTM's UBSAN_* crash types, as reports name it. */
#define UBSAN_LKDTM_FILE	"drivers/misc/lkdtm/ubsan.c"

/*
 * One class's row of UBSAN_DEBUGFS "stats" (patch 0033): failures
 * printed, all failures, failures at suppressed sites.
 */
struct ubsan_stats {
	long reported, counted, suppressed;
};

/* Class @class's row into @st: 0, or -1 if the file or the row is missing. */
static inline int ubsan_read_stats(const char *class, struct ubsan_stats *st)
{
	char buf[4096], name[32], *line, *save;

	if (guest_read_file(UBSAN_DEBUGFS "stats", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s %ld %ld %ld", name, &st->reported,
			   &st->counted, &st->suppressed) == 4 &&
		    !strcmp(name, class))
			return 0;
	return -1;
}

/* The lines of @log that hold both @what and @where. */
static inline int ubsan_count_lines(const char *log, const char *what,
				    const char *where)
{
	const char *end;
	int n = 0;

	for (; *log; log = end + (*end == '\n')) {
		end = strchrnul(log, '\n');
		if (memmem(log, end - log, what, strlen(what)) &&
		    memmem(log, end - log, where, strlen(where)))
			n++;
	}
	return n;
}

#endif
