// SPDX-License-Identifier: GPL-2.0
/*
 * epoll_wait() of 1,000 ready eventfds (fs/eventpoll.c ep_deliver_event():
 * one epoll_put_uevent() per event, which writes the event's two fields),
 * with the events buffer ending 0-7 bytes before a hole (an unmapped or
 * PROT_NONE page), on pages not faulted in yet (a fault that succeeds, and
 * may sleep, inside the window), running into the hole after some whole
 * events and any part of the next one, and starting in it. An event that
 * does not fit must stay ready: the next epoll_wait() into a good buffer
 * returns every fd again (level-triggered), each once.
 *
 * Every fd is writable (EPOLLOUT); every third also readable (EPOLLIN).
 * Each fd's data is a 64-bit value with different halves, so that a torn
 * or half-written data field shows.
 *
 * An event is 12 bytes on x86_64 and 16 elsewhere: the cases with 12 or
 * more bytes of an event before the hole run, but stay out of the digest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "uaccess.h"

#define NFDS	1000
#define EV	sizeof(struct epoll_event)	/* 12 on x86_64, 16 elsewhere */
#define EV_ALL	12				/* in the digest */

static int quiet;	/* what this case sees stays out of the digest */

static long obs_ret(long ret)
{
	return quiet ? ret : ua_obs_ret(ret);
}

FIXTURE(ep) {
	char *area;		/* pages between holes */
	long size;
	int epfd;
	int fd[NFDS];
	uint32_t want[NFDS];
	struct epoll_event good[NFDS];
};

UA_HOLE_VARIANTS(ep);

static uint64_t data_of(int i)
{
	return (uint64_t)(i + 1) << 32 | (uint32_t)(0xa5a50000 ^ i);
}

FIXTURE_SETUP(ep)
{
	struct rlimit rl = { 4096, 4096 };
	struct epoll_event ev;
	long ps = ua_page_size();
	/* room for the events at an offset of up to one page */
	int i, npages = (NFDS * EV + ps + 16 + ps - 1) / ps;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	self->area = ua_map_between_holes(npages, variant->prot_none, 0x55);
	ASSERT_NE(NULL, self->area);
	self->size = npages * ps;
	self->epfd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, self->epfd);
	for (i = 0; i < NFDS; i++) {
		self->fd[i] = eventfd(i % 3 == 0, EFD_CLOEXEC);
		ASSERT_LE(0, self->fd[i]);
		self->want[i] = EPOLLOUT | (i % 3 == 0 ? EPOLLIN : 0);
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.u64 = data_of(i);
		ASSERT_EQ(0, epoll_ctl(self->epfd, EPOLL_CTL_ADD, self->fd[i], &ev));
	}
}

FIXTURE_TEARDOWN(ep)
{
}

/*
 * The @n events at @p (any alignment): each one a known fd's, with its
 * events, and no fd twice. Returns how many passed.
 */
static int check(struct __test_metadata *_metadata, FIXTURE_DATA(ep) *self,
		 const char *p, int n)
{
	static unsigned char seen[NFDS];
	struct epoll_event ev;
	int i, idx, good = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		memcpy(&ev, p + i * EV, EV);
		idx = (int)(ev.data.u64 >> 32) - 1;
		if (idx < 0 || idx >= NFDS || ev.data.u64 != data_of(idx)) {
			EXPECT_TRUE(0) TH_LOG("event %d: data %#llx is no fd's", i,
					      (unsigned long long)ev.data.u64);
			continue;
		}
		EXPECT_EQ(0, seen[idx]) TH_LOG("fd %d twice (event %d)", idx, i);
		EXPECT_EQ(self->want[idx], ev.events) TH_LOG("fd %d", idx);
		good += !seen[idx] && self->want[idx] == ev.events;
		seen[idx] = 1;
	}
	if (!quiet)
		ua_obs_long(good);
	return good;
}

/* Every fd is still ready, each once. */
static void all_still_ready(struct __test_metadata *_metadata,
			    FIXTURE_DATA(ep) *self)
{
	memset(self->good, 0x5a, sizeof(self->good));
	ASSERT_EQ(NFDS, obs_ret(epoll_wait(self->epfd, self->good, NFDS, 0)));
	EXPECT_EQ(NFDS, check(_metadata, self, (char *)self->good, NFDS));
}

TEST_F(ep, events_of_1000_fds_are_written_up_to_the_hole_at_every_alignment)
{
	char *hole = self->area + self->size;
	int a;

	for (a = 0; a < 8; a++) {
		char *p = hole - a - NFDS * EV;
		int j;

		memset(p, 0x5a, NFDS * EV + a);
		EXPECT_EQ(NFDS, obs_ret(epoll_wait(self->epfd,
						      (struct epoll_event *)p,
						      NFDS, 0))) TH_LOG("align %d", a);
		EXPECT_EQ(NFDS, check(_metadata, self, p, NFDS)) TH_LOG("align %d", a);
		/* nothing written past the last event */
		for (j = 0; j < a; j++)
			EXPECT_EQ(0x5a, (unsigned char)p[NFDS * EV + j]) TH_LOG("align %d", a);
	}
	EXPECT_TRUE(ua_is_hole(hole, variant->prot_none));
}

TEST_F(ep, events_land_on_pages_not_faulted_in_yet)
{
	long ps = ua_page_size();
	int round;

	/*
	 * MADV_DONTNEED drops the pages: each store's fault allocates a new
	 * one inside the window, and the window must survive it.
	 */
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, madvise(self->area, self->size, MADV_DONTNEED));
		EXPECT_EQ(NFDS, obs_ret(epoll_wait(self->epfd,
				(struct epoll_event *)(self->area + round * ps / 2),
				NFDS, 0))) TH_LOG("round %d", round);
		EXPECT_EQ(NFDS, check(_metadata, self, self->area + round * ps / 2,
				      NFDS));
	}
}

/*
 * A lost or doubled event stays lost or doubled (the eventfds never change
 * state again), so one full check after a run of faulting calls finds it;
 * each check is a whole epoll_wait(), which is slow under KASAN on TCG.
 */
TEST_F(ep, buffer_running_into_the_hole_returns_the_events_that_fit)
{
	static const int fit[] = { 1, 2, 3, NFDS - 1 };
	char *hole = self->area + self->size;
	unsigned int i, b;

	/* @fit whole events before the hole, then 0..EV-1 bytes of one more. */
	for (i = 0; i < sizeof(fit) / sizeof(fit[0]); i++) {
		for (b = 0; b < EV; b++) {
			char *p = hole - b - fit[i] * EV;

			quiet = b >= EV_ALL;

			memset(p, 0x5a, fit[i] * EV + b);
			EXPECT_EQ(fit[i], obs_ret(epoll_wait(self->epfd,
						(struct epoll_event *)p, NFDS, 0)))
				TH_LOG("%d events and %u bytes before the hole", fit[i], b);
			EXPECT_EQ(fit[i], check(_metadata, self, p, fit[i]));
		}
		quiet = 0;
		all_still_ready(_metadata, self);
	}
}

TEST_F(ep, buffer_with_no_whole_event_before_the_hole_gives_efault)
{
	char *hole = self->area + self->size;
	unsigned int b;

	for (b = 0; b < EV; b++) {
		quiet = b >= EV_ALL;
		EXPECT_EQ(-1, obs_ret(epoll_wait(self->epfd,
					(struct epoll_event *)(hole - b), NFDS, 0)))
			TH_LOG("%u bytes before the hole", b);
		EXPECT_EQ(EFAULT, errno);
	}
	quiet = 0;
	all_still_ready(_metadata, self);
}

TEST_HARNESS_MAIN
