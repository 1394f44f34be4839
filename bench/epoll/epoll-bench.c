// SPDX-License-Identifier: GPL-2.0
/*
 * The thundering herd EPOLLEXCLUSIVE removes, in guest instructions per
 * event delivered (a benchmark, not a test).
 *
 *   epoll-bench
 *
 * Meant for a boot with one vCPU under QEMU -icount shift=0,sleep=off
 * (scripts/bench), where CLOCK_MONOTONIC advances one nanosecond per guest
 * instruction: a clock_gettime() delta is the instructions the vCPU ran in
 * between, the herd's, the kernel's on its behalf and whatever else ran.
 *
 * WAITERS processes, each with an epoll instance of its own, level-
 * triggered, hold one shared non-blocking eventfd. Each loops: epoll_pwait(),
 * then read() the eventfd; the one whose read() gets the count has
 * received the event and says so on a second eventfd, the others get
 * EAGAIN (a wasted wakeup; or, when the count is gone before the woken
 * waiter collects its events, ep_poll() puts it back to sleep without
 * returning: wasted all the same). The benchmark writes one event, waits
 * for the receipt, EVENTS times per block.
 *
 * Configurations:
 *   plain-1        one waiter, no EPOLLEXCLUSIVE (the cost of an event alone)
 *   plain-64       64 waiters without the flag: each event wakes them all
 *   exclusive-64   64 waiters with EPOLLEXCLUSIVE: each event wakes one
 *
 * Per configuration, the median, minimum and maximum over the rounds of
 * instructions per event, and of the waiters' voluntary context switches
 * per event (/proc/PID/status, read outside the timed block: how often a
 * waiter went to sleep, i.e. was woken), then the ratio of plain-64 to
 * exclusive-64. The first round only warms up. The wasted wakeups of a
 * block's last event can run after its end and are then counted in no
 * block: an error below 1/EVENTS.
 *
 * Output is KTAP, one case per configuration, with the results as values
 * (guest_value()) that the verdict collects and scripts/bench prints:
 *
 *   # value table OP CONFIG MEDIAN MIN MAX ROUNDS     OP: event, switches
 *   # value ratio OP CONFIG BASE RATIO
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "guest.h"

#define WAITERS		64
#define EVENTS		200	/* events per block */
#define ROUNDS		11	/* measured rounds, after one to warm up */
#define SPIN_LOOPS	10000000UL

struct config {
	const char *name;
	int waiters;
	uint32_t flags;
	bool ok;
	uint64_t insns[ROUNDS];		/* per event */
	double switches[ROUNDS];	/* per event */
};

static struct config configs[] = {
	{ .name = "plain-1", .waiters = 1 },
	{ .name = "plain-64", .waiters = WAITERS },
	{ .name = "exclusive-64", .waiters = WAITERS, .flags = EPOLLEXCLUSIVE },
};

#define NR_CONFIGS	(sizeof(configs) / sizeof(configs[0]))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void waiter(int efd, int done, uint32_t flags, pid_t parent)
{
	struct epoll_event ev = { .events = EPOLLIN | flags }, got;
	uint64_t v, one = 1;
	int epfd, null = open("/dev/null", O_RDWR | O_CLOEXEC);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev))
		_exit(2);
	for (;;) {
		if (epoll_pwait(epfd, &got, 1, -1, NULL) != 1)
			continue;
		if (read(efd, &v, sizeof(v)) == sizeof(v) &&
		    write(done, &one, sizeof(one)) != sizeof(one))
			_exit(3);
	}
}

static long voluntary_switches(pid_t pid)
{
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (guest_read_file(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nvoluntary_ctxt_switches:");
	return p ? strtol(p + strlen("\nvoluntary_ctxt_switches:"), NULL, 10) : -1;
}

static long herd_switches(const pid_t *pid, int n)
{
	long sum = 0, v;
	int i;

	for (i = 0; i < n; i++) {
		v = voluntary_switches(pid[i]);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

/* Every round of one configuration, with a herd of its own. */
static int run_config(struct config *c)
{
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int done = eventfd(0, EFD_CLOEXEC);
	pid_t pid[WAITERS], parent = getpid();
	int i, round, n = 0, ret = -1;
	uint64_t v, start;
	long sw;

	if (efd < 0 || done < 0) {
		printf("# %s: eventfd: %s\n", c->name, strerror(errno));
		goto out;
	}
	for (i = 0; i < c->waiters; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			printf("# %s: fork: %s\n", c->name, strerror(errno));
			goto out;
		}
		if (!pid[i])
			waiter(efd, done, c->flags, parent);
		n++;
	}
	for (round = -1; round < ROUNDS; round++) {
		sw = herd_switches(pid, n);
		start = now_ns();
		for (i = 0; i < EVENTS; i++) {
			v = 1;
			if (write(efd, &v, sizeof(v)) != sizeof(v) ||
			    read(done, &v, sizeof(v)) != sizeof(v)) {
				printf("# %s: event %d: %s\n", c->name, i,
				       strerror(errno));
				goto out;
			}
		}
		v = now_ns() - start;
		if (round < 0)
			continue;
		c->insns[round] = v / EVENTS;
		c->switches[round] = (double)(herd_switches(pid, n) - sw) / EVENTS;
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		kill(pid[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(pid[i], NULL, 0);
	if (efd >= 0)
		close(efd);
	if (done >= 0)
		close(done);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Instructions per nanosecond of a process that only computes. */
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

static void print_clocksource(void)
{
	char cs[64];

	guest_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			cs, sizeof(cs));
	cs[strcspn(cs, "\n")] = '\0';
	guest_value("clocksource", "%s", cs);
}

int main(void)
{
	struct config *plain = &configs[1], *excl = &configs[2];
	int failed = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", NR_CONFIGS);
	printf("# waiters %d, events %d per block, rounds %d\n", WAITERS,
	       EVENTS, ROUNDS);
	print_clocksource();
	calibrate("before");
	for (i = 0; i < NR_CONFIGS; i++)
		configs[i].ok = !run_config(&configs[i]);
	calibrate("after");
	guest_value("table", "op config median min max rounds");
	for (i = 0; i < NR_CONFIGS; i++) {
		struct config *c = &configs[i];

		if (!c->ok)
			continue;
		qsort(c->insns, ROUNDS, sizeof(c->insns[0]), cmp_u64);
		qsort(c->switches, ROUNDS, sizeof(c->switches[0]), cmp_double);
		guest_value("table", "event %s %llu %llu %llu %d", c->name,
			    (unsigned long long)c->insns[ROUNDS / 2],
			    (unsigned long long)c->insns[0],
			    (unsigned long long)c->insns[ROUNDS - 1], ROUNDS);
		guest_value("table", "switches %s %.2f %.2f %.2f %d", c->name,
			    c->switches[ROUNDS / 2], c->switches[0],
			    c->switches[ROUNDS - 1], ROUNDS);
	}
	guest_value("ratio", "op config base ratio");
	if (plain->ok && excl->ok && excl->insns[ROUNDS / 2])
		guest_value("ratio", "event %s %s %.4f", plain->name, excl->name,
			    (double)plain->insns[ROUNDS / 2] /
			    excl->insns[ROUNDS / 2]);
	for (i = 0; i < NR_CONFIGS; i++) {
		printf("%sok %zu %s\n", configs[i].ok ? "" : "not ", i + 1,
		       configs[i].name);
		failed += !configs[i].ok;
	}
	return failed ? 1 : 0;
}
