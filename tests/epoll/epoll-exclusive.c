// SPDX-License-Identifier: GPL-2.0
/*
 * EPOLLEXCLUSIVE (Linux 4.5): N processes, each with an epoll instance of
 * its own holding one shared file (an eventfd, the read end of a pipe, one
 * end of a socketpair), all asleep in epoll_pwait(). One event wakes
 * exactly one of them when every instance holds the file with
 * EPOLLEXCLUSIVE, and all N without it; level- and edge-triggered. Then
 * the rules of epoll_ctl() for the flag.
 *
 * fs/eventpoll.c: with the flag, ep_ptable_queue_proc() queues the
 * instance's entry on the file's wait queue as an exclusive waiter, and
 * ep_poll_callback() reports a wakeup (ending the exclusive walk of
 * __wake_up_common()) only when a task waits on that instance; without
 * it, every entry is non-exclusive and each instance wakes its waiter.
 *
 * Nothing here is timed: the waiters count their wakeups in shared
 * memory, and the test waits until every waiter is asleep again, in
 * epoll_pwait() or, after its wakeup, in read() (epoll.h says why that is
 * final).
 *
 * Negative control: harness.negative=epoll-no-exclusive on the kernel
 * command line leaves the flag out where the tests set it; the wakeup
 * tests with more than one waiter and the EINVAL rules must fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "epoll.h"

#define HERD_MAX	64
#define SETTLE_SECONDS	60	/* a waiter that never settles fails the test */

/* Counted by the waiters, read by the test. */
struct herd_counts {
	int woken[HERD_MAX];	/* epoll_pwait() returned the event */
	int total;
};

FIXTURE(herd) {
	struct herd_src src;
	struct herd_counts *counts;
	int release[2];		/* the waiters sleep in read() on [0] after a wakeup */
	pid_t pid[HERD_MAX];
	int n;
};

FIXTURE_VARIANT(herd) {
	enum herd_file file;
	bool edge;		/* EPOLLET */
};

/*
 * Level- and edge-triggered on an eventfd; a pipe and a socket level-
 * triggered (EPOLLET changes nothing in how ep_poll_callback() wakes, and
 * each herd of 64 costs seconds under KASAN and TCG: 64 waiters run on the
 * eventfd only, 1, 2 and 16 on every file).
 */
FIXTURE_VARIANT_ADD(herd, eventfd_level) { .file = HERD_EVENTFD };
FIXTURE_VARIANT_ADD(herd, eventfd_edge) { .file = HERD_EVENTFD, .edge = true };
FIXTURE_VARIANT_ADD(herd, pipe_level) { .file = HERD_PIPE };
FIXTURE_VARIANT_ADD(herd, socket_level) { .file = HERD_SOCKET };

static uint32_t exclusive_flag(void)
{
	return guest_negative_control("epoll-no-exclusive") ? 0 : EPOLLEXCLUSIVE;
}

FIXTURE_SETUP(herd)
{
	self->counts = mmap(NULL, sizeof(*self->counts), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->counts);
	memset(self->counts, 0, sizeof(*self->counts));
	ASSERT_EQ(0, herd_src_open(variant->file, &self->src, false));
	ASSERT_EQ(0, pipe2(self->release, O_CLOEXEC));
	self->n = 0;
}

FIXTURE_TEARDOWN(herd)
{
	int i;

	for (i = 0; i < self->n; i++)
		kill(self->pid[i], SIGKILL);
	for (i = 0; i < self->n; i++)
		waitpid(self->pid[i], NULL, 0);
	close(self->release[0]);
	close(self->release[1]);
	herd_src_close(&self->src);
}

/*
 * Waiter @i: an epoll instance of its own with the shared file in it, one
 * epoll_pwait() at a time; after each wakeup it counts and sleeps in read()
 * until the test ends. It never prints (init relays the suite's output
 * until the last holder of its stdout exits) and dies with the test.
 */
static void waiter(FIXTURE_DATA(herd) *self, int i, uint32_t events,
		   pid_t parent)
{
	struct epoll_event ev = { .events = events }, got;
	int epfd, null = open("/dev/null", O_RDWR | O_CLOEXEC);
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
	}
	close(self->release[1]);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, self->src.watch, &ev))
		_exit(2);
	for (;;) {
		int n = epoll_pwait(epfd, &got, 1, -1, NULL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			_exit(3);
		__atomic_add_fetch(&self->counts->woken[i], 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&self->counts->total, 1, __ATOMIC_SEQ_CST);
		if (read(self->release[0], &c, 1) != 1)
			_exit(0);
	}
}

static int start_herd(FIXTURE_DATA(herd) *self, int n, uint32_t events)
{
	pid_t parent = getpid();
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -errno;
		if (!pid)
			waiter(self, i, events, parent);
		self->pid[self->n++] = pid;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait until every waiter sleeps where it should: in read() if it counted
 * a wakeup, else in epoll_pwait(). Returns 0, or -1 if some waiter had not
 * settled after SETTLE_SECONDS (a timeout against hangs, not a measurement).
 */
static int settle(FIXTURE_DATA(herd) *self)
{
	struct timespec pause = { .tv_nsec = 1000000 };
	double deadline = now() + SETTLE_SECONDS;
	int i;

	for (;;) {
		for (i = 0; i < self->n; i++) {
			long nr = __atomic_load_n(&self->counts->woken[i],
						  __ATOMIC_SEQ_CST) ?
				  SYS_read : SYS_epoll_pwait;

			if (!proc_asleep_in(self->pid[i], nr))
				break;
		}
		if (i == self->n)
			return 0;
		if (now() > deadline)
			return -1;
		nanosleep(&pause, NULL);
	}
}

/* Start @n waiters with (or without) the flag, send one event, count. */
static int wakeups_of_one_event(struct __test_metadata *_metadata,
				FIXTURE_DATA(herd) *self,
				const FIXTURE_VARIANT(herd) *variant,
				int n, bool exclusive)
{
	uint32_t events = EPOLLIN | (variant->edge ? EPOLLET : 0) |
			  (exclusive ? exclusive_flag() : 0);

	if (start_herd(self, n, events)) {
		TH_LOG("fork: %s", strerror(errno));
		return -1;
	}
	if (settle(self)) {
		TH_LOG("the %d waiters did not all go to sleep in epoll_pwait()", n);
		return -1;
	}
	if (self->counts->total) {
		TH_LOG("%d wakeups before any event", self->counts->total);
		return -1;
	}
	if (herd_poke(&self->src)) {
		TH_LOG("poke: %s", strerror(errno));
		return -1;
	}
	if (settle(self)) {
		TH_LOG("the waiters did not settle after the event");
		return -1;
	}
	return self->counts->total;
}

#define WAKE_TESTS(n)								\
TEST_F_TIMEOUT(herd, exclusive_wakes_exactly_one_of_##n, 180)			\
{										\
	if (n == HERD_MAX && variant->file != HERD_EVENTFD)			\
		SKIP(return, "%d waiters on the eventfd only", n);		\
	EXPECT_EQ(1, wakeups_of_one_event(_metadata, self, variant, n, true));	\
}										\
TEST_F_TIMEOUT(herd, without_exclusive_wakes_all_##n, 180)			\
{										\
	if (n == HERD_MAX && variant->file != HERD_EVENTFD)			\
		SKIP(return, "%d waiters on the eventfd only", n);		\
	EXPECT_EQ(n, wakeups_of_one_event(_metadata, self, variant, n, false));	\
}

WAKE_TESTS(1)
WAKE_TESTS(2)
WAKE_TESTS(16)
WAKE_TESTS(64)

/*
 * A waiter that has its event sleeps elsewhere (in read() here), so its
 * instance has no task waiting and does not count as a wakeup: the next
 * event goes on to the next exclusive entry. 16 events wake the 16 waiters
 * once each, one per event.
 */
TEST_F_TIMEOUT(herd, exclusive_each_event_wakes_the_next_of_16, 300)
{
	uint32_t events = EPOLLIN | (variant->edge ? EPOLLET : 0) |
			  exclusive_flag();
	int e, i;

	ASSERT_EQ(0, start_herd(self, 16, events));
	ASSERT_EQ(0, settle(self));
	for (e = 1; e <= 16; e++) {
		ASSERT_EQ(0, herd_poke(&self->src));
		ASSERT_EQ(0, settle(self));
		EXPECT_EQ(e, self->counts->total) TH_LOG("after event %d", e);
	}
	for (i = 0; i < 16; i++)
		EXPECT_EQ(1, self->counts->woken[i]) TH_LOG("waiter %d", i);
}

/* The rules of epoll_ctl() for EPOLLEXCLUSIVE. */

static int ctl(int epfd, int op, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events };

	return epoll_ctl(epfd, op, fd, &ev) ? -errno : 0;
}

TEST(mod_with_exclusive_gives_einval)
{
	int epfd = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);

	ASSERT_LE(0, epfd);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, ctl(epfd, EPOLL_CTL_ADD, efd, EPOLLIN));
	EXPECT_EQ(-EINVAL, ctl(epfd, EPOLL_CTL_MOD, efd, EPOLLIN | exclusive_flag()));
	close(efd);
	close(epfd);
}

/* An entry added with the flag cannot be modified at all. */
TEST(mod_of_an_exclusive_entry_gives_einval)
{
	int epfd = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);

	ASSERT_LE(0, epfd);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, ctl(epfd, EPOLL_CTL_ADD, efd, EPOLLIN | exclusive_flag()));
	EXPECT_EQ(-EINVAL, ctl(epfd, EPOLL_CTL_MOD, efd, EPOLLIN | EPOLLOUT));
	close(efd);
	close(epfd);
}

/* Nested exclusive wakeups are not supported: the target is an epoll fd. */
TEST(exclusive_on_an_epoll_fd_gives_einval)
{
	int epfd = epoll_create1(EPOLL_CLOEXEC), inner = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_LE(0, epfd);
	ASSERT_LE(0, inner);
	EXPECT_EQ(-EINVAL, ctl(epfd, EPOLL_CTL_ADD, inner, EPOLLIN | exclusive_flag()));
	/* the same without the flag is fine */
	EXPECT_EQ(0, ctl(epfd, EPOLL_CTL_ADD, inner, EPOLLIN));
	close(inner);
	close(epfd);
}

/*
 * With the flag, only EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP, EPOLLWAKEUP
 * and EPOLLET may be set (fs/eventpoll.c EPOLLEXCLUSIVE_OK_BITS).
 */
TEST(exclusive_with_a_flag_outside_the_allowed_set_gives_einval)
{
	static const uint32_t outside[] = {
		EPOLLPRI, EPOLLRDNORM, EPOLLRDBAND, EPOLLWRNORM, EPOLLWRBAND,
		EPOLLMSG, EPOLLRDHUP,
	};
	int epfd = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);
	size_t i;

	ASSERT_LE(0, epfd);
	ASSERT_LE(0, efd);
	for (i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		EXPECT_EQ(-EINVAL, ctl(epfd, EPOLL_CTL_ADD, efd,
				       EPOLLIN | outside[i] | exclusive_flag()))
			TH_LOG("events EPOLLIN | 0x%x | EPOLLEXCLUSIVE", outside[i]);
	close(efd);
	close(epfd);
}

TEST(exclusive_with_oneshot_gives_einval)
{
	int epfd = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);

	ASSERT_LE(0, epfd);
	ASSERT_LE(0, efd);
	EXPECT_EQ(-EINVAL, ctl(epfd, EPOLL_CTL_ADD, efd,
			       EPOLLIN | EPOLLONESHOT | exclusive_flag()));
	close(efd);
	close(epfd);
}

/* The positive side of the rule: the allowed set, all at once, is taken. */
TEST(exclusive_takes_in_out_err_hup_wakeup_et)
{
	int epfd = epoll_create1(EPOLL_CLOEXEC), efd = eventfd(0, EFD_CLOEXEC);

	ASSERT_LE(0, epfd);
	ASSERT_LE(0, efd);
	EXPECT_EQ(0, ctl(epfd, EPOLL_CTL_ADD, efd,
			 EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP |
			 EPOLLET | exclusive_flag()));
	close(efd);
	close(epfd);
}

TEST_HARNESS_MAIN
