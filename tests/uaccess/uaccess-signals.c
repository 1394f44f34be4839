// SPDX-License-Identifier: GPL-2.0
/*
 * Signals delivered while the user-access paths run: a 1 ms ITIMER_REAL
 * delivers SIGALRM, with SA_RESTART and without, on the normal stack and on
 * an alternate stack that ends right before a hole (the arch's signal frame
 * code, arch/x86|riscv|arm/kernel/signal.c, writes the frame up to it).
 *
 * Calls that do not sleep (access() of strings before a hole, getdents64,
 * writev/readv of many iovecs on tmpfs) give the same results as without
 * signals (filldir64 may return early when a signal is pending: the walk
 * still yields every entry once). poll() on 1,000 fds that never become
 * ready returns EINTR with or without SA_RESTART, as on x86 (poll is never
 * restarted after a handler), and writes revents 0 back. readv() of an
 * empty pipe returns EINTR without SA_RESTART; with it, the read is
 * restarted until the handler's own write arrives, and returns those bytes.
 * The digest covers the results, never the number of signals.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "uaccess.h"

static volatile sig_atomic_t nsig, bad_info, off_stack;
static volatile int wake_fd = -1, wake_at;
static char *alt_lo, *alt_hi;
static char wake_data[1024];

static void on_alarm(int sig, siginfo_t *si, void *uc)
{
	char here;

	nsig++;
	if (si->si_signo != SIGALRM || si->si_code != SI_KERNEL)
		bad_info++;
	if (alt_lo && (&here < alt_lo || &here >= alt_hi))
		off_stack++;
	if (wake_fd >= 0 && nsig == wake_at) {
		if (write(wake_fd, wake_data, sizeof(wake_data)) != sizeof(wake_data))
			bad_info++;
	}
}

FIXTURE(sig) {
	char *page;	/* two pages between holes, for strings and iovecs */
	long ps;
};

FIXTURE_VARIANT(sig) {
	int restart;
	int altstack;
};

FIXTURE_VARIANT_ADD(sig, restart) { .restart = 1 };
FIXTURE_VARIANT_ADD(sig, no_restart) { .restart = 0 };
FIXTURE_VARIANT_ADD(sig, restart_altstack) { .restart = 1, .altstack = 1 };
FIXTURE_VARIANT_ADD(sig, no_restart_altstack) { .restart = 0, .altstack = 1 };

static void start_timer(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_timer(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

FIXTURE_SETUP(sig)
{
	struct sigaction sa = { .sa_sigaction = on_alarm };

	self->ps = ua_page_size();
	self->page = ua_map_between_holes(2, 0, 'X');
	ASSERT_NE(NULL, self->page);
	sa.sa_flags = SA_SIGINFO | (variant->restart ? SA_RESTART : 0);
	if (variant->altstack) {
		stack_t ss;

		ss.ss_size = 16 * self->ps;
		ss.ss_sp = ua_map_between_holes(16, 0, 0);
		ss.ss_flags = 0;
		ASSERT_NE(NULL, ss.ss_sp);
		ASSERT_EQ(0, sigaltstack(&ss, NULL));
		alt_lo = ss.ss_sp;
		alt_hi = alt_lo + ss.ss_size;
		sa.sa_flags |= SA_ONSTACK;
	}
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
}

FIXTURE_TEARDOWN(sig)
{
	stop_timer();
}

static void expect_clean_signals(struct __test_metadata *_metadata, int min)
{
	EXPECT_LE(min, (int)nsig);
	EXPECT_EQ(0, (int)bad_info);
	EXPECT_EQ(0, (int)off_stack);
}

TEST_F_TIMEOUT(sig, path_lookups_before_hole_are_unchanged_by_signals, 120)
{
	char dir[] = "/tmp/uaccess-sig.XXXXXX", *hole = self->page + 2 * self->ps;
	int i, fd, bad = 0, calls = 0;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, chdir(dir));
	fd = open("abcdefghijklmnopq", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	start_timer();
	for (i = 0; (nsig < 50 || i < 300) && i < 100000; i++) {
		int l = 17 - i % 8;	/* every alignment against the hole */
		char *s = hole - 1 - l;

		memcpy(s, "abcdefghijklmnopq", l);
		s[l] = '\0';
		calls++;
		if (access(s, F_OK) != (l == 17 ? 0 : -1))
			bad++;
		if (prctl(PR_SET_NAME, s))
			bad++;
		hole[-1] = 'X';	/* now it runs into the hole */
		if (access(s, F_OK) != -1 || errno != EFAULT)
			bad++;
	}
	stop_timer();
	ua_obs_long(bad);
	EXPECT_EQ(0, bad) TH_LOG("%d of %d rounds differ", bad, calls);
	expect_clean_signals(_metadata, 50);
	unlink("abcdefghijklmnopq");
	chdir("/");
	rmdir(dir);
}

static long getdents(int fd, void *buf, unsigned int count)
{
	return syscall(__NR_getdents64, fd, buf, count);
}

TEST_F_TIMEOUT(sig, getdents_walk_before_hole_yields_every_entry_once_under_signals, 120)
{
	char dir[] = "/tmp/uaccess-sig.XXXXXX", name[32];
	char *hole = self->page + 2 * self->ps, *buf = hole - 4096;
	static char seen[1000];
	int i, dfd, n = 0, rounds;

	ASSERT_NE(NULL, mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dfd);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "%0*d", 1 + i % 20, i);
		ASSERT_EQ(0, mknodat(dfd, name, S_IFREG | 0600, 0));
	}
	start_timer();
	for (rounds = 0; (rounds < 5 || nsig < 50) && rounds < 10000; rounds++) {
		long ret, pos;

		memset(seen, 0, sizeof(seen));
		n = 0;
		ASSERT_EQ(0, lseek(dfd, 0, SEEK_SET));
		while ((ret = getdents(dfd, buf, 4096)) > 0) {
			for (pos = 0; pos < ret;) {
				unsigned short reclen;
				char *nm = buf + pos + 19;

				memcpy(&reclen, buf + pos + 16, 2);
				if (strcmp(nm, ".") && strcmp(nm, "..")) {
					i = atoi(nm);
					EXPECT_EQ(0, seen[i]) TH_LOG("%s twice", nm);
					seen[i] = 1;
					n++;
				}
				pos += reclen;
			}
		}
		EXPECT_EQ(0, ret) TH_LOG("%s", strerror(errno));
		EXPECT_EQ(1000, n);
		if (ret || n != 1000)
			break;
	}
	stop_timer();
	ua_obs_long(n);
	expect_clean_signals(_metadata, 50);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "%0*d", 1 + i % 20, i);
		unlinkat(dfd, name, 0);
	}
	close(dfd);
	rmdir(dir);
}

TEST_F_TIMEOUT(sig, writev_readv_of_1024_iovecs_are_unchanged_by_signals, 120)
{
	struct iovec *v = (struct iovec *)(self->page + 2 * self->ps) - 64;
	static char data[64 * 32], back[64 * 32];
	char name[] = "/tmp/uaccess-sig.XXXXXX";
	int i, fd, rounds, bad = 0;
	long total = 0;

	fd = mkstemp(name);
	ASSERT_LE(0, fd);
	unlink(name);
	for (i = 0; i < 64; i++) {
		v[i].iov_base = data + 32 * i + i % 8;
		v[i].iov_len = i % 25;
		total += i % 25;
		memset(v[i].iov_base, 'A' + i % 26, i % 25);
	}
	start_timer();
	for (rounds = 0; (rounds < 200 || nsig < 50) && rounds < 100000; rounds++) {
		if (pwritev(fd, v, 64, 0) != total)
			bad++;
		memcpy(back, data, sizeof(data));
		for (i = 0; i < 64; i++)
			memset(v[i].iov_base, '.', v[i].iov_len);
		if (preadv(fd, v, 64, 0) != total || memcmp(back, data, sizeof(data)))
			bad++;
	}
	stop_timer();
	ua_obs_long(bad);
	EXPECT_EQ(0, bad) TH_LOG("%d of %d rounds differ", bad, rounds);
	expect_clean_signals(_metadata, 50);
	close(fd);
}

TEST_F_TIMEOUT(sig, poll_of_1000_fds_gives_eintr_and_writes_revents_back, 120)
{
	struct rlimit rl = { 4096, 4096 };
	struct pollfd *pfd;
	int i, p[2];
	long ret;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	pfd = (struct pollfd *)ua_map_between_holes(2, 0, 0) + 2 * self->ps / sizeof(*pfd) - 1000;
	for (i = 0; i < 1000; i++) {
		if (i % 2 == 0)
			ASSERT_EQ(0, pipe(p));
		pfd[i].fd = p[0];	/* two entries for each read end */
		pfd[i].events = POLLIN;
		pfd[i].revents = 0x5a5a;
	}
	for (i = 0; i < 2; i++) {
		int timeout = i ? 60000 : -1, j, nonzero = 0;

		nsig = 0;
		start_timer();
		ret = ua_obs_ret(poll(pfd, 1000, timeout));
		stop_timer();
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EINTR, errno) TH_LOG("timeout %d", timeout);
		for (j = 0; j < 1000; j++)
			nonzero += pfd[j].revents != 0;
		ua_obs_long(nonzero);
		EXPECT_EQ(0, nonzero);
		expect_clean_signals(_metadata, 1);
	}
}

TEST_F_TIMEOUT(sig, readv_of_empty_pipe_restarts_or_gives_eintr, 120)
{
	struct iovec v[1024];
	static char buf[1024];
	int i, p[2];
	long ret;

	ASSERT_EQ(0, pipe(p));
	for (i = 0; i < 1024; i++) {
		v[i].iov_base = buf + i;
		v[i].iov_len = 1;
		wake_data[i] = 'a' + i % 26;
	}
	wake_fd = p[1];
	wake_at = 5;
	start_timer();
	ret = ua_obs_ret(readv(p[0], v, 1024));
	stop_timer();
	wake_fd = -1;
	if (variant->restart) {
		EXPECT_EQ(1024, ret) TH_LOG("%s", strerror(errno));
		EXPECT_EQ(0, memcmp(buf, wake_data, 1024));
		EXPECT_LE(5, (int)nsig);
		ua_obs(buf, sizeof(buf));
	} else {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EINTR, errno);
	}
	EXPECT_EQ(0, (int)bad_info);
	EXPECT_EQ(0, (int)off_stack);
}

TEST_HARNESS_MAIN
