/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by tests/epoll/epoll-exclusive.c and bench/epoll/epoll-bench.c:
 * the file a herd of waiters watches (an eventfd, a pipe or a socket), and
 * the /proc checks that say when a waiter is asleep in a given system call.
 *
 * Wakeups are counted, not timed. write() to the watched file runs the
 * wakeups before it returns: every waiter it woke is runnable ('R' in
 * /proc/PID/stat) from then on until it has run. So once every waiter is
 * either asleep in epoll_pwait() (not woken) or has counted its wakeup
 * and is asleep in read() on a pipe of the test's, nothing more is on its
 * way, and the count is final. /proc/PID/syscall names the system call a
 * sleeping task is in (CONFIG_HAVE_ARCH_TRACEHOOK, which x86_64, riscv64
 * and arm have).
 */
#ifndef EPOLL_TEST_H
#define EPOLL_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "guest.h"

enum herd_file { HERD_EVENTFD, HERD_PIPE, HERD_SOCKET };

/* The file the waiters watch, and the end the test pokes one event into. */
struct herd_src {
	int watch;
	int poke;
};

static inline int herd_src_open(enum herd_file kind, struct herd_src *s,
				bool nonblock)
{
	int fds[2];

	switch (kind) {
	case HERD_EVENTFD:
		s->watch = s->poke = eventfd(0, EFD_CLOEXEC |
					     (nonblock ? EFD_NONBLOCK : 0));
		return s->watch < 0 ? -errno : 0;
	case HERD_PIPE:
		if (pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0)))
			return -errno;
		break;
	case HERD_SOCKET:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
			       (nonblock ? SOCK_NONBLOCK : 0), 0, fds))
			return -errno;
		break;
	}
	s->watch = fds[0];
	s->poke = fds[1];
	return 0;
}

static inline void herd_src_close(struct herd_src *s)
{
	if (s->poke != s->watch)
		close(s->poke);
	close(s->watch);
}

/* One event: an eventfd increment, or one byte into the pipe or socket. */
static inline int herd_poke(const struct herd_src *s)
{
	uint64_t one = 1;
	ssize_t n;

	if (s->poke == s->watch)
		n = write(s->poke, &one, sizeof(one)) == sizeof(one) ? 0 : -1;
	else
		n = write(s->poke, "e", 1) == 1 ? 0 : -1;
	return n ? -errno : 0;
}

/* The state letter of /proc/PID/stat ('R', 'S', ...), or 0. */
static inline char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (guest_read_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');		/* the comm may hold spaces */
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * The system call the task @pid sleeps in (/proc/PID/syscall: "NR args..."),
 * or -1 if it is running or sleeps outside a system call.
 */
static inline long proc_syscall(pid_t pid)
{
	char path[64], buf[256], *end;
	long nr;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if (guest_read_file(path, buf, sizeof(buf)))
		return -1;
	nr = strtol(buf, &end, 10);
	return end == buf ? -1 : nr;
}

/* @pid sleeps (state S) in system call @nr. */
static inline bool proc_asleep_in(pid_t pid, long nr)
{
	return proc_state(pid) == 'S' && proc_syscall(pid) == nr;
}


#endif
