// SPDX-License-Identifier: GPL-2.0
/*
 * Project quota benchmark: what accounting costs per file operation, in
 * guest instructions, on tmpfs (no quota, usrquota, prjquota) and ext4
 * (with and without the quota feature).
 *
 *   prjquota-bench
 *
 * Meant for a boot with one vCPU under QEMU -icount shift=0,sleep=off
 * (scripts/bench), where CLOCK_MONOTONIC advances by one nanosecond per
 * guest instruction executed: a clock_gettime() delta is the number of
 * instructions the vCPU ran in between, the benchmark's own, the kernel's
 * on its behalf and whatever interrupts and kernel threads ran meanwhile,
 * independent of the host's load. Elsewhere the numbers are nanoseconds.
 *
 * Operations, each timed as a block of many:
 *
 *   create4k   open(O_CREAT | O_EXCL), write 4 KiB, close, unlink
 *   write1m    256 sequential 4 KiB writes to a fresh empty file; the
 *              create before and the close and unlink after are not timed
 *
 * Configurations, each mounted here (tmpfs) or from a virtio disk found by
 * its serial (ext4, formatted by scripts/bench), the files in a directory
 * "work" below the mount:
 *
 *   tmpfs-noquota    tmpfs
 *   tmpfs-usrquota   tmpfs -o usrquota, a limit for uid 0
 *   tmpfs-prjquota   tmpfs -o prjquota, "work" PROJINHERIT in project
 *                    PRJ_ID, a limit for that project
 *   ext4-prjquota    mkfs -O quota,project (user, group and project
 *                    quota), -o prjquota, "work" as on tmpfs-prjquota
 *   ext4-prjonly     mkfs -O quota,project -E quotatype=prjquota (project
 *                    quota alone, as tmpfs-prjquota), -o prjquota, ditto
 *   ext4-noquota     mkfs without quota
 *
 * Limits are far above what the benchmark uses. It runs as root, so, as
 * for every root process, hard limits are not enforced, but the quota
 * code still does all its accounting and limit checks.
 *
 * A round times every configuration once per operation, in an order that
 * rotates from round to round, so that slow drift and deferred work (RCU
 * callbacks, timers) fall on all configurations alike; a syncfs() after
 * each block, not timed, commits ext4's journal before the next one. The
 * first round only warms up. Results: per operation and configuration the
 * median, minimum and maximum over the rounds of instructions per
 * operation, then the ratios to the configuration without quota. Nothing
 * is printed while timing, since the console output of the init would
 * run on the same vCPU.
 *
 * A calibration spin, a loop of a known number of instructions, says how
 * much the clock gains on the instruction count through interrupts (the
 * timer tick) and kernel threads while a process only computes.
 *
 * Each measured block runs between two markers (bench/uaccess/marker.h):
 * `scripts/bench PROFILE=1` counts the kernel functions it runs with the
 * QEMU plugin, the "profile-phase" values name each phase.
 *
 * Output is KTAP, one case per configuration (set up and measured), with
 * the results as values (guest_value()) that the verdict collects and
 * scripts/bench prints:
 *
 *   # value table OP CONFIG MEDIAN MIN MAX ROUNDS
 *   # value ratio OP CONFIG BASE RATIO
 *   # value target NAME met|missed DETAIL
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/fs.h>
#include <linux/quota.h>

#include "guest.h"
#include "projquota/projquota.h"
#include "../uaccess/marker.h"

#define ROUNDS		31	/* measured rounds, after one to warm up */
#define CREATE_OPS	500	/* create4k operations per block */
#define WRITE_FILES	8	/* write1m operations per block */
#define WRITE_CHUNK	4096
#define WRITE_CHUNKS	256	/* 1 MiB */
#define SPIN_LOOPS	10000000UL
#define PRJ_ID		4242u
#define LIMIT_KIB	(16ULL << 20)	/* 16 GiB */
#define LIMIT_INODES	(1ULL << 20)
#define TARGET_SLACK	1.02	/* prjquota may cost 2 % more than usrquota */

enum { OP_CREATE, OP_WRITE, NR_OPS };

static const char * const op_names[NR_OPS] = { "create4k", "write1m" };

struct config {
	const char *name;
	const char *type;	/* filesystem type */
	const char *serial;	/* virtio disk serial, NULL for tmpfs */
	const char *opts;	/* mount data */
	int qtype;		/* USRQUOTA or PRJQUOTA with a limit, or -1 */
	const char *base;	/* the configuration without quota */
	char mnt[64];
	int dirfd;		/* the "work" directory, or -1 */
	bool ok;
	uint64_t ns[NR_OPS][ROUNDS];
};

static struct config configs[] = {
	{ .name = "tmpfs-noquota", .type = "tmpfs", .opts = "size=256m",
	  .qtype = -1 },
	{ .name = "tmpfs-usrquota", .type = "tmpfs",
	  .opts = "size=256m,usrquota", .qtype = USRQUOTA,
	  .base = "tmpfs-noquota" },
	{ .name = "tmpfs-prjquota", .type = "tmpfs",
	  .opts = "size=256m,prjquota", .qtype = PRJQUOTA,
	  .base = "tmpfs-noquota" },
	{ .name = "ext4-noquota", .type = "ext4", .serial = "bench-ext4",
	  .qtype = -1 },
	{ .name = "ext4-prjquota", .type = "ext4", .serial = "bench-ext4q",
	  .opts = "prjquota", .qtype = PRJQUOTA, .base = "ext4-noquota" },
	{ .name = "ext4-prjonly", .type = "ext4", .serial = "bench-ext4p",
	  .opts = "prjquota", .qtype = PRJQUOTA, .base = "ext4-noquota" },
};

#define NR_CONFIGS	(sizeof(configs) / sizeof(configs[0]))

static char buf[WRITE_CHUNK];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct config *find_config(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CONFIGS; i++)
		if (!strcmp(configs[i].name, name))
			return &configs[i];
	return NULL;
}

static int set_limit(int fd, int qtype, unsigned int id)
{
	struct if_dqblk dq = {
		.dqb_bsoftlimit = LIMIT_KIB,
		.dqb_bhardlimit = LIMIT_KIB,
		.dqb_isoftlimit = LIMIT_INODES,
		.dqb_ihardlimit = LIMIT_INODES,
		.dqb_valid = QIF_LIMITS,
	};

	return sys_quotactl_fd(fd, Q_SETQUOTA, qtype, id, &dq);
}

static int get_usage(int fd, int qtype, unsigned int id, struct if_dqblk *dq)
{
	return sys_quotactl_fd(fd, Q_GETQUOTA, qtype, id, dq);
}

static int write_file(int dirfd, const char *name, int chunks)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			0644);
	int i, ret = 0;

	if (fd < 0)
		return -1;
	for (i = 0; i < chunks; i++)
		if (write(fd, buf, WRITE_CHUNK) != WRITE_CHUNK)
			ret = -1;
	close(fd);
	return ret;
}

/*
 * Mount @c, make its work directory and check that quota charges what is
 * written there; on failure, say why in a KTAP diagnostic.
 */
static int setup(struct config *c)
{
	char dev[300];
	const char *src = c->type;
	unsigned int id = c->qtype == PRJQUOTA ? PRJ_ID : 0;
	struct if_dqblk before, after;
	int mfd;

	c->dirfd = -1;
	if (c->serial && guest_find_disk(c->serial, dev, sizeof(dev))) {
		printf("# %s: no disk with serial %s\n", c->name, c->serial);
		return -1;
	}
	if (c->serial)
		src = dev;
	snprintf(c->mnt, sizeof(c->mnt), "/mnt/%s", c->name);
	mkdir(c->mnt, 0755);
	if (mount(src, c->mnt, c->type, 0, c->opts)) {
		printf("# %s: mount %s (%s): %s\n", c->name, src,
		       c->opts ? c->opts : "", strerror(errno));
		return -1;
	}
	mfd = open(c->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0 || mkdirat(mfd, "work", 0755)) {
		printf("# %s: work directory: %s\n", c->name, strerror(errno));
		goto fail;
	}
	c->dirfd = openat(mfd, "work", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		goto fail;
	if (c->qtype == PRJQUOTA && set_project(c->dirfd, PRJ_ID, true)) {
		printf("# %s: FS_IOC_FSSETXATTR: %s\n", c->name,
		       strerror(errno));
		goto fail;
	}
	if (c->qtype >= 0 && set_limit(mfd, c->qtype, id)) {
		printf("# %s: Q_SETQUOTA: %s\n", c->name, strerror(errno));
		goto fail;
	}
	/* The configuration must charge what it claims to. */
	if (c->qtype >= 0) {
		if (get_usage(mfd, c->qtype, id, &before) ||
		    write_file(c->dirfd, "check", 1) ||
		    get_usage(mfd, c->qtype, id, &after)) {
			printf("# %s: usage check: %s\n", c->name,
			       strerror(errno));
			goto fail;
		}
		unlinkat(c->dirfd, "check", 0);
		if (after.dqb_curspace < before.dqb_curspace + WRITE_CHUNK ||
		    after.dqb_curinodes != before.dqb_curinodes + 1) {
			printf("# %s: a 4 KiB file was not charged to id %u\n",
			       c->name, id);
			goto fail;
		}
	}
	close(mfd);
	return 0;
fail:
	if (mfd >= 0)
		close(mfd);
	return -1;
}

/*
 * The plugin's phase of an operation on a configuration (scripts/bench
 * PROFILE=1 profiles the kernel functions between the markers of each):
 * 1 + op * NR_CONFIGS + the configuration's index. Only measured rounds
 * are marked (@mark).
 */
_Static_assert(2 * (NR_OPS * NR_CONFIGS) + 1 < MARKS, "more phases than markers");

static int phase(int op, struct config *c)
{
	return 1 + op * NR_CONFIGS + (c - configs);
}

static uint64_t run_create(struct config *c, bool mark)
{
	uint64_t start, end;
	int i, fd;

	if (mark)
		bench_mark(2 * phase(OP_CREATE, c));
	start = now_ns();
	for (i = 0; i < CREATE_OPS; i++) {
		fd = openat(c->dirfd, "f", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0644);
		if (fd < 0 || write(fd, buf, WRITE_CHUNK) != WRITE_CHUNK)
			c->ok = false;
		close(fd);
		unlinkat(c->dirfd, "f", 0);
	}
	end = now_ns();
	if (mark)
		bench_mark(2 * phase(OP_CREATE, c) + 1);
	return (end - start) / CREATE_OPS;
}

static uint64_t run_write(struct config *c, bool mark)
{
	uint64_t start, sum = 0;
	int i, j, fd;

	for (j = 0; j < WRITE_FILES; j++) {
		fd = openat(c->dirfd, "big", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0644);
		if (fd < 0)
			c->ok = false;
		if (mark)
			bench_mark(2 * phase(OP_WRITE, c));
		start = now_ns();
		for (i = 0; i < WRITE_CHUNKS; i++)
			if (write(fd, buf, WRITE_CHUNK) != WRITE_CHUNK)
				c->ok = false;
		sum += now_ns() - start;
		if (mark)
			bench_mark(2 * phase(OP_WRITE, c) + 1);
		close(fd);
		unlinkat(c->dirfd, "big", 0);
	}
	return sum / WRITE_FILES;
}

static void run_round(int round)
{
	size_t i;
	int op;

	for (op = 0; op < NR_OPS; op++) {
		for (i = 0; i < NR_CONFIGS; i++) {
			struct config *c = &configs[(i + round) % NR_CONFIGS];
			uint64_t ns;

			if (!c->ok)
				continue;
			ns = op == OP_CREATE ? run_create(c, round >= 0) :
					       run_write(c, round >= 0);
			syncfs(c->dirfd);
			if (round >= 0)
				c->ns[op][round] = ns;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(struct config *c, int op)
{
	uint64_t v[ROUNDS];

	memcpy(v, c->ns[op], sizeof(v));
	qsort(v, ROUNDS, sizeof(v[0]), cmp_u64);
	return ROUNDS % 2 ? v[ROUNDS / 2] :
		(v[ROUNDS / 2 - 1] + v[ROUNDS / 2]) / 2;
}

static uint64_t extreme(struct config *c, int op, bool max)
{
	uint64_t e = c->ns[op][0];
	int r;

	for (r = 1; r < ROUNDS; r++)
		if (max ? c->ns[op][r] > e : c->ns[op][r] < e)
			e = c->ns[op][r];
	return e;
}

/* Median of @name over its base for @op, or 0 if either is missing. */
static double ratio(const char *name, const char *base, int op)
{
	struct config *c = find_config(name), *b = find_config(base);

	if (!c || !b || !c->ok || !b->ok)
		return 0;
	return (double)median(c, op) / median(b, op);
}

/*
 * Instructions per nanosecond of a process that only computes: a loop of
 * two instructions per iteration, timed.
 */
static void calibrate(const char *when)
{
#ifdef __x86_64__
	unsigned long n = SPIN_LOOPS;
	uint64_t start = now_ns(), ns;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n));
	ns = now_ns() - start;
	guest_value("calibration", "%s insns=%lu ns=%llu ratio=%.5f", when,
		    2 * SPIN_LOOPS, (unsigned long long)ns,
		    (double)ns / (2 * SPIN_LOOPS));
#endif
}

static void read_clocksource(char *cs, size_t size)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			"re");

	cs[0] = '\0';
	if (f && fgets(cs, size, f))
		cs[strcspn(cs, "\n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * x86 starts on tsc-early and moves to tsc once the TSC is calibrated
 * again, a second or so after boot, which changes the clock's scale a
 * little: wait for that before timing. Sleeping costs no host time with
 * -icount sleep=off.
 */
static void settle_clocksource(void)
{
	struct timespec tick = { .tv_nsec = 100000000 };
	char cs[64];
	int i;

	for (i = 0; i < 100; i++) {
		read_clocksource(cs, sizeof(cs));
		if (strcmp(cs, "tsc-early"))
			break;
		nanosleep(&tick, NULL);
	}
	guest_value("clocksource", "%s", cs);
}

static void print_clocksource(void)
{
	char cs[64];

	read_clocksource(cs, sizeof(cs));
	guest_value("clocksource", "%s", cs);
}

static void report(void)
{
	double pu, pp, up, ep, eo;
	size_t i;
	int op;

	guest_value("table", "op config median min max rounds");
	for (op = 0; op < NR_OPS; op++)
		for (i = 0; i < NR_CONFIGS; i++) {
			struct config *c = &configs[i];

			if (!c->ok)
				continue;
			guest_value("table", "%s %s %llu %llu %llu %d",
				    op_names[op], c->name,
				    (unsigned long long)median(c, op),
				    (unsigned long long)extreme(c, op, false),
				    (unsigned long long)extreme(c, op, true),
				    ROUNDS);
		}
	guest_value("ratio", "op config base ratio");
	for (op = 0; op < NR_OPS; op++)
		for (i = 0; i < NR_CONFIGS; i++) {
			struct config *c = &configs[i];

			if (c->base && ratio(c->name, c->base, op))
				guest_value("ratio", "%s %s %s %.4f",
					    op_names[op], c->name, c->base,
					    ratio(c->name, c->base, op));
		}
	for (op = 0; op < NR_OPS; op++) {
		pp = ratio("tmpfs-prjquota", "tmpfs-noquota", op);
		up = ratio("tmpfs-usrquota", "tmpfs-noquota", op);
		pu = ratio("tmpfs-prjquota", "tmpfs-usrquota", op);
		ep = ratio("ext4-prjquota", "ext4-noquota", op);
		eo = ratio("ext4-prjonly", "ext4-noquota", op);
		if (pu)
			guest_value("target", "%s-prj-vs-usr %s tmpfs prjquota/usrquota %.4f (limit %.2f; overheads %+.2f%% vs %+.2f%%)",
				    op_names[op], pu <= TARGET_SLACK ? "met" : "missed",
				    pu, TARGET_SLACK, (pp - 1) * 100, (up - 1) * 100);
		if (pp && ep)
			guest_value("target", "%s-tmpfs-vs-ext4 %s overhead tmpfs prjquota %+.2f%%, ext4 prjquota %+.2f%%",
				    op_names[op], pp < ep ? "met" : "missed",
				    (pp - 1) * 100, (ep - 1) * 100);
		if (pp && eo)
			guest_value("target", "%s-tmpfs-vs-ext4-prjonly %s overhead tmpfs prjquota %+.2f%%, ext4 prjonly %+.2f%%",
				    op_names[op], pp < eo ? "met" : "missed",
				    (pp - 1) * 100, (eo - 1) * 100);
	}
}

int main(void)
{
	size_t i;
	int round, op, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(buf, 'q', sizeof(buf));
	printf("TAP version 13\n1..%zu\n", NR_CONFIGS);
	mkdir("/mnt", 0755);
	for (i = 0; i < NR_CONFIGS; i++)
		configs[i].ok = !setup(&configs[i]);
	printf("# rounds %d, create4k x %d, write1m x %d per block\n", ROUNDS,
	       CREATE_OPS, WRITE_FILES);
	settle_clocksource();
	calibrate("before");

	/* what scripts/bench PROFILE=1 divides each phase's profile by */
	for (i = 0; i < NR_CONFIGS; i++)
		for (op = 0; op < NR_OPS; op++)
			guest_value("profile-phase", "%d %s %s %d",
				    phase(op, &configs[i]), op_names[op],
				    configs[i].name,
				    op == OP_CREATE ? CREATE_OPS : 1);
	for (round = -1; round < ROUNDS; round++)
		run_round(round);

	calibrate("after");
	print_clocksource();
	report();
	for (i = 0; i < NR_CONFIGS; i++) {
		struct config *c = &configs[i];

		if (c->dirfd >= 0)
			close(c->dirfd);
		if (c->mnt[0] && umount(c->mnt)) {
			printf("# %s: umount: %s\n", c->name, strerror(errno));
			c->ok = false;
		}
		printf("%sok %zu %s\n", c->ok ? "" : "not ", i + 1, c->name);
		failed += !c->ok;
	}
	return failed ? 1 : 0;
}
