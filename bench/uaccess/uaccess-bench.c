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
 *   4 epoll-1k      epoll_wait() of an epoll instance watching the same
 *                   NR_POLL eventfds for EPOLLOUT, level-triggered, room
 *                   for all: 1,000 events written back
 *   5 execve-1k     vfork(), execve() of this program with NR_ARGS
 *                   arguments ("--exit" first: it exits at once),
 *                   waitpid(): count() and copy_strings() read every
 *                   argument, create_elf_tables() writes a pointer to
 *                   each (the toggles per op tell; the instructions also
 *                   hold the vfork, the child's start-up and its exit)
 *   6 signal        kill() of this process with SIGUSR1, caught by a
 *                   handler: a signal frame set up, read back by
 *                   rt_sigreturn(), and the rseq updates on the way
 *   7 futex-pair    one round trip of a futex ping-pong with a second
 *                   thread: FUTEX_WAKE and FUTEX_WAIT on each side, two
 *                   context switches (and the rseq updates on the way
 *                   back to user space, as glibc registers rseq)
 *   8 irq-spin      a loop of SPIN iterations in user space (2
 *                   instructions each on riscv64, 3 on arm and x86_64):
 *                   under -icount shift=0 about 1 timer tick per op on
 *                   riscv64 and 1.5 on x86_64 (HZ=250), 0.6 on arm
 *                   (HZ=100). The interrupts the phase took are printed
 *                   (read just outside the markers: with and without can
 *                   differ by one), and scripts/bench-uaccess gives the
 *                   user access writes per interrupt
 *   9 irq-kernel    fallocate() of KSPIN_MB MiB in a memfd, ftruncate()
 *                   back to 0: the kernel clears and frees pages with no
 *                   user access window, so that the ticks interrupt kernel
 *                   mode (exception entry from SVC mode on arm), as
 *                   irq-spin's interrupt user mode
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
 *   # value uaccess-irqs P INTERRUPTS     (the phase's, from /proc/stat)
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
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "guest.h"
#include "marker.h"

#define DEPTH		64
#define NR_ENTRIES	10000
#define NR_POLL		1000
#define NR_ARGS		1000
#define SPIN		2000000
#define KSPIN_MB	32
#define WARMUP		3

static char deep[DEPTH * 2 + 16];
static char longpath[4096];
static int pollfds[NR_POLL];
static struct pollfd pfd[NR_POLL];
static char dents[65536];
static int epfd;
static struct epoll_event events[NR_POLL];
static char self[4096];
static char *args[NR_ARGS + 1];
static volatile sig_atomic_t caught;
static _Atomic int turn;	/* 0: the benchmark's turn, 1: the partner's */
static _Atomic int stop;
static pthread_t partner;

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

static int op_epoll(void)
{
	return epoll_wait(epfd, events, NR_POLL, 0) == NR_POLL ? 0 : -1;
}

static int op_execve(void)
{
	int status;
	pid_t pid = vfork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(self, args);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void on_usr1(int sig)
{
	caught++;
}

static int op_signal(void)
{
	sig_atomic_t before = caught;

	if (kill(getpid(), SIGUSR1))
		return -1;
	return caught == before + 1 ? 0 : -1;
}

static long futex(_Atomic int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Waits while *uaddr is val. */
static void futex_wait_while(_Atomic int *uaddr, int val)
{
	while (atomic_load(uaddr) == val)
		futex(uaddr, FUTEX_WAIT_PRIVATE, val);
}

static void *partner_fn(void *arg)
{
	for (;;) {
		futex_wait_while(&turn, 0);
		if (atomic_load(&stop))
			return NULL;
		atomic_store(&turn, 0);
		futex(&turn, FUTEX_WAKE_PRIVATE, 1);
	}
}

static int op_spin(void)
{
	unsigned int i;

	for (i = 0; i < SPIN; i++)
		asm volatile("" : : "r" (i) : "memory");
	return 0;
}

static int memfd = -1;

static int open_memfd(void)
{
	memfd = memfd_create("irq-kernel", MFD_CLOEXEC);
	return memfd < 0 ? -1 : 0;
}

static int close_memfd(void)
{
	return close(memfd);
}

static int op_kspin(void)
{
	if (fallocate(memfd, 0, 0, KSPIN_MB << 20))
		return -1;
	return ftruncate(memfd, 0);
}

/* Interrupts since boot: the first number of /proc/stat's "intr" line. */
static unsigned long long interrupts(void)
{
	static char buf[65536];
	unsigned long long n;
	char *p;

	if (guest_read_file("/proc/stat", buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "\nintr ");
	if (!p || sscanf(p, "\nintr %llu", &n) != 1)
		return 0;
	return n;
}

static int op_futex(void)
{
	atomic_store(&turn, 1);
	if (futex(&turn, FUTEX_WAKE_PRIVATE, 1) < 0)
		return -1;
	futex_wait_while(&turn, 1);
	return 0;
}

static int setup(void)
{
	char name[64];
	size_t len;
	int i, fd;
	struct rlimit rl = { NR_POLL + 64, NR_POLL + 64 };
	struct epoll_event ev = { .events = EPOLLOUT };
	struct sigaction sa = { .sa_handler = on_usr1 };
	ssize_t n;

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
		pollfds[i] = eventfd(0, EFD_CLOEXEC);
		if (pollfds[i] < 0)
			return -1;
		pfd[i].fd = pollfds[i];
		pfd[i].events = POLLIN | POLLOUT;
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -1;
	for (i = 0; i < NR_POLL; i++) {
		ev.data.u32 = i;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, pollfds[i], &ev))
			return -1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	args[0] = self;
	args[1] = "--exit";
	for (i = 2; i < NR_ARGS; i++)
		args[i] = "an-argument-of-the-execve-phase";
	if (sigaction(SIGUSR1, &sa, NULL))
		return -1;
	return 0;
}

/* After epoll-1k: execve-1k's vfork() would copy the fds. */
static int close_pollfds(void)
{
	int i, err = close(epfd);

	for (i = 0; i < NR_POLL; i++)
		err |= close(pollfds[i]);
	return err;
}

/*
 * futex-pair's partner thread, only for that phase (a second thread
 * makes every fdget() take a reference). Both threads SCHED_FIFO at one
 * priority: on the one vCPU a wakeup never preempts, so each side does
 * exactly its FUTEX_WAKE, then its FUTEX_WAIT, per round trip.
 */
static int start_partner(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t attr;

	struct sched_param other = { .sched_priority = 0 };
	int err;

	err = pthread_attr_init(&attr);
	if (err)
		goto out;
	err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (!err)
		err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	if (!err)
		err = pthread_attr_setschedparam(&attr, &sp);
	if (!err && sched_setscheduler(0, SCHED_FIFO, &sp))
		err = errno;
	if (!err) {
		err = pthread_create(&partner, &attr, partner_fn, NULL);
		/* the phases after this one run as before */
		if (err)
			sched_setscheduler(0, SCHED_OTHER, &other);
	}
	pthread_attr_destroy(&attr);
out:
	errno = err;
	return err ? -1 : 0;
}

static int stop_partner(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	atomic_store(&stop, 1);
	atomic_store(&turn, 1);
	futex(&turn, FUTEX_WAKE_PRIVATE, 1);
	errno = pthread_join(partner, NULL);
	if (errno)
		return -1;
	return sched_setscheduler(0, SCHED_OTHER, &sp);
}

/* before: ahead of the warm-up; after: once the end marker has run */
struct phase {
	const char *name;
	int (*op)(void);
	int iters;
	int (*before)(void);
	int (*after)(void);
};

static const struct phase phases[] = {
	{ .name = "stat-deep", .op = op_stat_deep, .iters = 200 },
	{ .name = "getdents-10k", .op = op_getdents, .iters = 5 },
	{ .name = "path-4k", .op = op_path4k, .iters = 200 },
	{ .name = "poll-1k", .op = op_poll, .iters = 20 },
	{ .name = "epoll-1k", .op = op_epoll, .iters = 20,
	  .after = close_pollfds },
	{ .name = "execve-1k", .op = op_execve, .iters = 10 },
	{ .name = "signal", .op = op_signal, .iters = 200 },
	{ .name = "futex-pair", .op = op_futex, .iters = 200,
	  .before = start_partner, .after = stop_partner },
	{ .name = "irq-spin", .op = op_spin, .iters = 50 },
	{ .name = "irq-kernel", .op = op_kspin, .iters = 20,
	  .before = open_memfd, .after = close_memfd },
};

#define NR_PHASES (sizeof(phases) / sizeof(phases[0]))

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t ns[NR_PHASES];
	unsigned long long irqs[NR_PHASES];
	int ok[NR_PHASES];
	int set, failed = 0, err;
	size_t p;
	int i;

	/* The execve phase's child: nothing but the exec itself counts. */
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return argc == NR_ARGS ? 0 : 1;
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
		if (ph->before && ph->before()) {
			printf("# %s: set-up failed: %s\n", ph->name, strerror(errno));
			ok[p] = 0;
			continue;
		}
		for (i = 0; i < WARMUP; i++)
			if (ph->op())
				ok[p] = 0;
		irqs[p] = interrupts();
		t0 = now();
		bench_mark(2 * p);
		err = 0;
		for (i = 0; i < ph->iters; i++)
			err |= ph->op();
		bench_mark(2 * p + 1);
		ns[p] = now() - t0;
		irqs[p] = interrupts() - irqs[p];
		if (ph->after && ph->after())
			ok[p] = 0;
		if (err)
			ok[p] = 0;
	}
	for (p = 0; p < NR_PHASES; p++) {
		if (ok[p])
			guest_value("uaccess-phase", "%zu %s %d %llu", p,
				    phases[p].name, phases[p].iters,
				    (unsigned long long)(ns[p] / phases[p].iters));
		if (ok[p])
			guest_value("uaccess-irqs", "%zu %llu", p, irqs[p]);
		printf("%sok %zu %s\n", ok[p] ? "" : "not ", p + 1,
		       phases[p].name);
		failed += !ok[p];
	}
	return failed ? 1 : 0;
}
