// SPDX-License-Identifier: GPL-2.0
/*
 * UBSAN benchmark: guest instructions per check that passes and per check
 * that fails again at a site that already reported, in the default mode
 * (report=once) and, where the kernel has ubsan.report=, in report=count.
 *
 *   ubsan-bench
 *
 * Meant for a boot with one vCPU under QEMU -icount shift=0,sleep=off
 * (scripts/bench-ubsan), where CLOCK_MONOTONIC advances one nanosecond per
 * guest instruction. The checks are those of tests/ubsan/extmod's module,
 * loaded from /lib/modules: writing N to its parameter "fail" (or "pass")
 * runs N calls of a function whose array bounds check fails (or passes);
 * the module reports its first failure before timing starts, so every
 * timed failure is a repeat. Per check:
 *
 *   pass      instructions of "pass" / N
 *   repeat    instructions of "fail" / N minus those of "pass" / N: what a
 *             failed check costs more than a passing one
 *
 * Rounds alternate the two, the first round only warms up; results are
 * the median, minimum and maximum over the rounds. Output is KTAP, one
 * case per mode, with the results as values (guest_value()) that the
 * verdict collects:
 *
 *   # value table CHECK MODE MEDIAN MIN MAX ROUNDS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "guest.h"

#define MODULE		"/lib/modules/ubsan_extmod.ko"
#define PARAMS		"/sys/module/ubsan_extmod/parameters/"
#define REPORT		"/sys/module/ubsan/parameters/report"
#define CALLS		20000
#define ROUNDS		15

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* instructions (ns under -icount) to run @param's function @n times */
static long long run(const char *param, int n)
{
	char path[128], val[32];
	long long t;
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", param);
	snprintf(val, sizeof(val), "%d", n);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	t = now_ns();
	if (write(fd, val, strlen(val)) < 0)
		t = -1;
	else
		t = now_ns() - t;
	close(fd);
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *check, const char *mode, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	guest_value("table", "%s %s %.1f %.1f %.1f %d", check, mode, v[n / 2],
		    v[0], v[n - 1], n);
}

/*
 * One mode: returns 0 or -1. @first: the site has not reported yet; its
 * report, the one splat of the boot, is announced to the verdict.
 */
static int measure(const char *mode, bool first)
{
	double pass[ROUNDS], repeat[ROUNDS];
	int r, n = 0, kmsg;

	if (first) {
		int err;

		kmsg = guest_kmsg_open();
		if (kmsg < 0)
			return -1;
		err = guest_expect_splat(kmsg, "ubsan_extmod.c:");
		close(kmsg);
		if (err)
			return -1;
	}
	if (run("fail", 1) < 0)		/* the site reports now, not while timed */
		return -1;
	for (r = 0; r <= ROUNDS; r++) {
		long long p = run("pass", CALLS), f = run("fail", CALLS);

		if (p < 0 || f < 0)
			return -1;
		if (!r)
			continue;	/* warm-up */
		pass[n] = (double)p / CALLS;
		repeat[n] = (double)(f - p) / CALLS;
		n++;
	}
	report("pass", mode, pass, n);
	report("repeat", mode, repeat, n);
	return 0;
}

int main(void)
{
	int fd, ok, t = 1, nt;

	nt = access(REPORT, W_OK) ? 1 : 2;
	printf("TAP version 13\n1..%d\n", nt);
	fd = open(MODULE, O_RDONLY);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
		printf("Bail out! %s: %s\n", MODULE, strerror(errno));
		return 1;
	}
	close(fd);

	ok = !measure("once", true);
	printf("%sok %d once\n", ok ? "" : "not ", t++);
	if (nt == 2) {
		ok = !guest_write_file(REPORT, "count") && !measure("count", false);
		printf("%sok %d count\n", ok ? "" : "not ", t++);
		guest_write_file(REPORT, "once");
	}
	return 0;
}
