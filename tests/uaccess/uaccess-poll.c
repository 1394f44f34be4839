// SPDX-License-Identifier: GPL-2.0
/*
 * poll() on 1,000 fds (fs/select.c do_sys_poll: the array is copied in,
 * then every revents is written back with unsafe_put_user() inside
 * user_write_access_begin()), with the pollfd array ending right before a
 * hole (an unmapped or PROT_NONE page), at every alignment, and crossing
 * into it. revents are known from the pipes' states: read end with data
 * POLLIN, empty 0, writer gone POLLHUP; write end POLLOUT, reader gone
 * POLLOUT|POLLERR; a closed fd POLLNVAL; fd -1 is ignored (0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "uaccess.h"

#define NFDS	1000

FIXTURE(poll) {
	char *area;		/* pages between holes */
	long size;
	int fd[NFDS];
	short want[NFDS];
};

UA_HOLE_VARIANTS(poll);

FIXTURE_SETUP(poll)
{
	struct rlimit rl = { 4096, 4096 };
	int i, p[2], closed;
	long ps = ua_page_size();
	int npages = (NFDS * sizeof(struct pollfd) + 8 + ps - 1) / ps;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	self->area = ua_map_between_holes(npages, variant->prot_none, 0x55);
	ASSERT_NE(NULL, self->area);
	self->size = npages * ps;
	/* 1 in 10 slots is -1 or a closed fd; the others come in pipe pairs. */
	/* Below the limit, above anything open. */
	closed = 4000;
	ASSERT_EQ(-1, fcntl(closed, F_GETFD));
	for (i = 0; i < NFDS; i += 2) {
		if (i % 20 == 18) {
			self->fd[i] = -1;
			self->want[i] = 0;
			self->fd[i + 1] = closed;
			self->want[i + 1] = POLLNVAL;
			continue;
		}
		ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
		self->fd[i] = p[0];
		self->fd[i + 1] = p[1];
		switch (i / 2 % 4) {
		case 0:	/* empty */
			self->want[i] = 0;
			self->want[i + 1] = POLLOUT;
			break;
		case 1:	/* data */
			ASSERT_EQ(1, write(p[1], "x", 1));
			self->want[i] = POLLIN;
			self->want[i + 1] = POLLOUT;
			break;
		case 2:	/* the writer gone */
			close(p[1]);
			self->fd[i + 1] = p[0];
			self->want[i] = POLLHUP;
			self->want[i + 1] = POLLHUP;
			break;
		case 3:	/* the reader gone */
			close(p[0]);
			self->fd[i] = p[1];
			self->want[i] = POLLOUT | POLLERR;
			self->want[i + 1] = POLLOUT | POLLERR;
			break;
		}
	}
}

FIXTURE_TEARDOWN(poll)
{
}

/* Lay the pollfds out at @p (any alignment), revents set to garbage. */
static void lay_out(FIXTURE_DATA(poll) *self, char *p, int n)
{
	struct pollfd pfd;
	int i;

	for (i = 0; i < n; i++) {
		pfd.fd = self->fd[i];
		pfd.events = POLLIN | POLLOUT;
		pfd.revents = 0x5a5a;
		memcpy(p + i * sizeof(pfd), &pfd, sizeof(pfd));
	}
}

static int check(struct __test_metadata *_metadata, FIXTURE_DATA(poll) *self,
		 char *p, int n)
{
	struct pollfd pfd;
	int i, ready = 0;

	for (i = 0; i < n; i++) {
		memcpy(&pfd, p + i * sizeof(pfd), sizeof(pfd));
		ua_obs_long(pfd.revents);
		EXPECT_EQ(self->want[i], pfd.revents) TH_LOG("fd slot %d", i);
		EXPECT_EQ(self->fd[i], pfd.fd);
		ready += !!self->want[i];
	}
	return ready;
}

TEST_F(poll, revents_of_1000_fds_are_written_up_to_the_hole_at_every_alignment)
{
	char *hole = self->area + self->size;
	int a, n;

	for (a = 0; a < 8; a++) {
		for (n = NFDS; n >= NFDS - 1; n--) {
			char *p = hole - a - n * sizeof(struct pollfd);
			long ret;

			lay_out(self, p, n);
			ret = ua_obs_ret(poll((struct pollfd *)p, n, 0));
			EXPECT_EQ(check(_metadata, self, p, n), ret) TH_LOG("align %d n %d", a, n);
		}
	}
	EXPECT_TRUE(ua_is_hole(hole, variant->prot_none));
}

TEST_F(poll, array_crossing_into_the_hole_gives_efault)
{
	char *hole = self->area + self->size;
	int k;

	/* The last pollfd has 0..7 of its 8 bytes before the hole. */
	for (k = 0; k < 8; k++) {
		char *p = hole - k - (NFDS - 1) * sizeof(struct pollfd);

		lay_out(self, p, NFDS - 1);
		EXPECT_EQ(-1, ua_obs_ret(poll((struct pollfd *)p, NFDS, 0)));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%d bytes of the last", k);
	}
}

TEST_F(poll, more_fds_than_rlimit_gives_einval)
{
	struct rlimit rl = { 1024, 1024 };

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	EXPECT_EQ(-1, ua_obs_ret(poll((struct pollfd *)self->area, 1025, 0)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
