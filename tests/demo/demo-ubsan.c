// SPDX-License-Identifier: GPL-2.0
/*
 * make run's UBSAN scene: the run-time control of the series, as a user
 * would type it. The checks and the report mode from
 * /sys/module/ubsan/parameters; a failed bounds check (LKDTM UBSAN_BOUNDS)
 * reported; its site silenced through debugfs; the same check failing
 * again, counted but not printed; the counters read back. Exits non-zero
 * when the kernel does not answer as the series says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

#define PARAMS	"/sys/module/ubsan/parameters/"
#define DEBUGFS	"/sys/kernel/debug/ubsan/"
#define DIRECT	"/sys/kernel/debug/provoke-crash/DIRECT"
#define LOG	(64 * 1024)

static int surprises;

/* Print "# cat PATH" and the file, indented. */
static void cat(const char *path)
{
	char buf[4096], *line, *save;

	printf("# cat %s\n", path);
	if (guest_read_file(path, buf, sizeof(buf))) {
		printf("  (cannot read it)\n");
		surprises++;
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("  %s\n", line);
}

/*
 * Fail the bounds check once through LKDTM; append the UBSAN lines it
 * printed to @out (of @size). An expected report is announced to the
 * boot's verdict first.
 */
static void fail_bounds(bool expect_report, char *out, size_t size)
{
	char *log = calloc(1, LOG), *p;
	int kmsg = guest_kmsg_open();

	out[0] = '\0';
	if (!log || kmsg < 0) {
		surprises++;
		free(log);
		return;
	}
	if (expect_report)
		guest_expect_splat(kmsg, "UBSAN: array-index-out-of-bounds");
	printf("# echo UBSAN_BOUNDS > %s\n", DIRECT);
	if (guest_write_file(DIRECT, "UBSAN_BOUNDS"))
		surprises++;
	guest_kmsg_read(kmsg, log, LOG);
	close(kmsg);
	for (p = strstr(log, "UBSAN:"); p; p = strstr(p + 1, "UBSAN:")) {
		size_t n = strcspn(p, "\n");

		snprintf(out + strlen(out), size - strlen(out), "  %.*s\n",
			 (int)n, p);
	}
	free(log);
}

int main(void)
{
	char seen[1024], site[512] = "", *p;

	printf("TAP version 13\n1..1\n");
	if (access(DIRECT, W_OK) || access(DEBUGFS "suppress", W_OK)) {
		printf("ok 1 ubsan_scene # SKIP no LKDTM or no ubsan debugfs\n");
		return 0;
	}
	printf("\n## UBSAN run-time control (patches 0032-0037)\n");
	cat(PARAMS "checks");
	cat(PARAMS "report");

	fail_bounds(true, seen, sizeof(seen));
	printf("%s", seen[0] ? seen : "  (no report)\n");
	if (!seen[0])
		surprises++;

	/* "UBSAN: array-index-out-of-bounds in FILE:LINE:COL": FILE:LINE */
	p = strstr(seen, " in ");
	if (p) {
		snprintf(site, sizeof(site), "%s", p + 4);
		site[strcspn(site, "\n")] = '\0';
		p = strrchr(site, ':');
		if (p)
			*p = '\0';
	}
	printf("# echo all > %sreport; echo %s > %ssuppress\n", PARAMS, site,
	       DEBUGFS);
	if (!site[0] || guest_write_file(PARAMS "report", "all") ||
	    guest_write_file(DEBUGFS "suppress", site))
		surprises++;
	fail_bounds(false, seen, sizeof(seen));
	printf("%s", seen[0] ? seen : "  (silenced: nothing printed)\n");
	if (seen[0])
		surprises++;
	cat(DEBUGFS "stats");
	cat(DEBUGFS "suppress");

	/* back to the defaults, for whatever runs after */
	snprintf(seen, sizeof(seen), "!%s", site);
	guest_write_file(DEBUGFS "suppress", seen);
	guest_write_file(PARAMS "report", "once");

	printf("%sok 1 ubsan_scene\n", surprises ? "not " : "");
	return surprises ? 1 : 0;
}
