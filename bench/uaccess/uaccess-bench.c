// SPDX-License-Identifier: GPL-2.0
/*
 * Batched user access benchmark: the system calls whose kernel side reads
 * or writes user memory many times per call, each run as a block of
 * iterations between two markers that the QEMU plugin
 * bench/uaccess/plugin/uaccess-count.c recognises (see there). The plugin
 * counts the guest instructions and the user-access toggles (riscv64
 * sstatus.SUM, arm DACR/TTBCR, x86_64 stac/clac) from the begin marker to
 * the end marker of each phase; scripts/bench-uaccess divides them by the
 * iterations this program prints.
 *
 *   uaccess-bench
 *
 * Phases (all on the tmpfs /tmp):
 *
 *   0 stat-deep     stat() of a path of DEPTH directories ("/tmp/ub/d/d/...")
 *   1 getdents-10k  open(), getdents64() with a 64 KiB buffer to the end,
 *                   close() of a directory of NR_ENTRIES files: one op is a
 *                   listing of all entries
 *   2 path-4k       stat() of a 4095-byte path: 4087 slashes then
 *                   "tmp/ub/f"; getname() copies it with
 *                   strncpy_from_user(), the walk skips the slashes
 *   3 poll-1k       poll() of NR_POLL eventfds, timeout 0 (every fd is
 *                   writable: 1,000 revents written back)
 *
 * Each phase runs WARMUP iterations, then ITERS iterations between its
 * markers. Under QEMU -icount shift=0 CLOCK_MONOTONIC advances one
 * nanosecond per guest instruction; the clock delta per op is printed too,
 * as a check of the plugin's instruction count.
 *
 * Output is KTAP, one case per phase, with the results as values
 * (guest_value()) that the verdict collects for scripts/bench-uaccess:
 *
 *   # value uaccess-phase P NAME ITERS CLOCK_NS_PER_OP
 *
 * A case fails when its set-up or one of its system calls fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "guest.h"
#include "marker.h"

#define DEPTH		64
#define NR_ENTRIES	10000
#define NR_POLL		1000
#define WARMUP		3

static char deep[DEPTH * 2 + 16];
static char longpath[4096];
static int pollfds[NR_POLL];
static struct pollfd pfd[NR_POLL];
static char dents[65536];

static int op_stat_deep(void)
{
	struct stat st;

	return stat(deep, &st);
}

static int op_getdents(void)
{
	long n, total = 0;
	int fd = open("/tmp/ub/many", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, dents, sizeof(dents))) > 0)
		total += n;
	close(fd);
	return n < 0 || !total ? -1 : 0;
}

static int op_path4k(void)
{
	struct stat st;

	return stat(longpath, &st);
}

static int op_poll(void)
{
	return poll(pfd, NR_POLL, 0) == NR_POLL ? 0 : -1;
}

static int setup(void)
{
	char name[64];
	size_t len;
	int i, fd;
	struct rlimit rl = { NR_POLL + 64, NR_POLL + 64 };

	if (mkdir("/tmp/ub", 0755) && errno != EEXIST)
		return -1;
	strcpy(deep, "/tmp/ub");
	for (i = 0; i < DEPTH; i++) {
		strcat(deep, "/d");
		if (mkdir(deep, 0755) && errno != EEXIST)
			return -1;
	}
	if (mkdir("/tmp/ub/many", 0755) && errno != EEXIST)
		return -1;
	for (i = 0; i < NR_ENTRIES; i++) {
		snprintf(name, sizeof(name), "/tmp/ub/many/entry-%05d", i);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	fd = open("/tmp/ub/f", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	len = sizeof(longpath) - 1 - strlen("tmp/ub/f");
	memset(longpath, '/', len);
	strcpy(longpath + len, "tmp/ub/f");
	if (strlen(longpath) != 4095)
		return -1;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	for (i = 0; i < NR_POLL; i++) {
		pollfds[i] = eventfd(0, 0);
		if (pollfds[i] < 0)
			return -1;
		pfd[i].fd = pollfds[i];
		pfd[i].events = POLLIN | POLLOUT;
	}
	return 0;
}

struct phase {
	const char *name;
	int (*op)(void);
	int iters;
};

static const struct phase phases[] = {
	{ "stat-deep", op_stat_deep, 200 },
	{ "getdents-10k", op_getdents, 5 },
	{ "path-4k", op_path4k, 200 },
	{ "poll-1k", op_poll, 20 },
};

#define NR_PHASES (sizeof(phases) / sizeof(phases[0]))

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(void)
{
	uint64_t ns[NR_PHASES];
	int ok[NR_PHASES];
	int set, failed = 0, err;
	size_t p;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", NR_PHASES);
	set = setup();
	if (set)
		printf("# set-up failed: %s\n", strerror(errno));
	/* Nothing is printed while measuring: the init relays the output. */
	for (p = 0; p < NR_PHASES; p++) {
		const struct phase *ph = &phases[p];
		uint64_t t0;

		ok[p] = !set;
		if (set)
			continue;
		for (i = 0; i < WARMUP; i++)
			if (ph->op())
				ok[p] = 0;
		t0 = now();
		bench_mark(2 * p);
		err = 0;
		for (i = 0; i < ph->iters; i++)
			err |= ph->op();
		bench_mark(2 * p + 1);
		ns[p] = now() - t0;
		if (err)
			ok[p] = 0;
	}
	for (p = 0; p < NR_PHASES; p++) {
		if (ok[p])
			guest_value("uaccess-phase", "%zu %s %d %llu", p,
				    phases[p].name, phases[p].iters,
				    (unsigned long long)(ns[p] / phases[p].iters));
		printf("%sok %zu %s\n", ok[p] ? "" : "not ", p + 1,
		       phases[p].name);
		failed += !ok[p];
	}
	return failed ? 1 : 0;
}
