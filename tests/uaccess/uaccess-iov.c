// SPDX-License-Identifier: GPL-2.0
/*
 * readv()/writev() with many iovecs (lib/iov_iter.c copy_iovec_from_user:
 * unsafe_get_user() per iovec): IOV_MAX (1024) iovecs of lengths 0..24 at
 * every alignment, the iovec array ending right before a hole (unmapped or
 * PROT_NONE), the array crossing into it (EFAULT), more than IOV_MAX
 * (EINVAL), and an iovec whose buffer is the hole: the transfer stops
 * exactly there and returns the bytes before it. The file is on tmpfs.
 * struct iovec is 8 or 16 bytes with the word size; the layout is computed,
 * the observations (bytes, counts) do not depend on it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "kselftest_harness.h"
#include "uaccess.h"

#define NIOV	1024
#define DATA	(NIOV * 32)

FIXTURE(iov) {
	char *area;		/* iovec arrays, before a hole */
	long size;
	char *data;		/* the bytes the iovecs point into */
	char want[DATA];
	size_t total;
	int fd;
};

UA_HOLE_VARIANTS(iov);

FIXTURE_SETUP(iov)
{
	long ps = ua_page_size();
	int npages = (NIOV * sizeof(struct iovec) + ps - 1) / ps + 1;
	char name[] = "/tmp/uaccess-iov.XXXXXX";

	self->area = ua_map_between_holes(npages, variant->prot_none, 0);
	ASSERT_NE(NULL, self->area);
	self->size = npages * ps;
	self->data = malloc(DATA + 8);
	ASSERT_NE(NULL, self->data);
	self->fd = mkstemp(name);
	ASSERT_LE(0, self->fd);
	unlink(name);
}

FIXTURE_TEARDOWN(iov)
{
}

/* iovec i: length i % 25 at offset 32 * i + i % 8 of data; n of them at @at. */
static struct iovec *lay_out(FIXTURE_DATA(iov) *self, struct iovec *at, int n)
{
	struct iovec v;
	int i;

	self->total = 0;
	for (i = 0; i < n; i++) {
		v.iov_base = self->data + 32 * i + i % 8;
		v.iov_len = i % 25;
		memcpy(&at[i], &v, sizeof(v));
		self->total += v.iov_len;
	}
	return at;
}

static void fill(FIXTURE_DATA(iov) *self, int n, unsigned int seed)
{
	int i, j;
	size_t k = 0;

	for (i = 0; i < DATA + 8; i++)
		self->data[i] = '.';
	for (i = 0; i < n; i++)
		for (j = 0; j < i % 25; j++) {
			char c = 'A' + (seed + k) % 53;

			self->data[32 * i + i % 8 + j] = c;
			self->want[k++] = c;
		}
}

static struct iovec *array_before_hole(FIXTURE_DATA(iov) *self, int n)
{
	return (struct iovec *)(self->area + self->size) - n;
}

TEST_F(iov, writev_and_readv_of_1024_iovecs_ending_before_hole)
{
	char got[DATA];
	struct iovec *v = array_before_hole(self, NIOV);
	int seed;

	for (seed = 0; seed < 3; seed++) {
		fill(self, NIOV, seed);
		lay_out(self, v, NIOV);
		ASSERT_EQ(0, ftruncate(self->fd, 0));
		ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
		EXPECT_EQ((long)self->total, ua_obs_ret(writev(self->fd, v, NIOV)));
		EXPECT_EQ((long)self->total, pread(self->fd, got, sizeof(got), 0));
		ua_obs(got, self->total);
		EXPECT_EQ(0, memcmp(self->want, got, self->total));

		/* Read back scattered into the same iovecs, after wiping them. */
		memcpy(got, self->data, DATA);
		memset(self->data, '.', DATA + 8);
		ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
		EXPECT_EQ((long)self->total, ua_obs_ret(readv(self->fd, v, NIOV)));
		EXPECT_EQ(0, memcmp(got, self->data, DATA));
		ua_obs(self->data, DATA);
	}
	EXPECT_TRUE(ua_is_hole(self->area + self->size, variant->prot_none));
}

TEST_F(iov, readv_scatters_bytes_exactly)
{
	char src[DATA], *p;
	struct iovec *v = array_before_hole(self, NIOV);
	int i, j;
	size_t k = 0;

	for (i = 0; i < DATA; i++)
		src[i] = 'a' + i % 23;
	ASSERT_EQ(DATA, pwrite(self->fd, src, DATA, 0));
	memset(self->data, '.', DATA + 8);
	lay_out(self, v, NIOV);
	EXPECT_EQ((long)self->total, ua_obs_ret(readv(self->fd, v, NIOV)));
	for (i = 0; i < NIOV; i++) {
		p = self->data + 32 * i;
		for (j = 0; j < 32; j++) {
			/* bytes of iovec i are at 32 * i + i % 8, i % 25 of them */
			int in = j >= i % 8 && j < i % 8 + i % 25;

			if (in && p[j] != src[k])
				break;
			if (!in && p[j] != '.')
				break;
			k += in;
		}
		EXPECT_EQ(32, j) TH_LOG("iovec %d: byte %d is wrong", i, j);
	}
	ua_obs(self->data, DATA);
}

TEST_F(iov, iovec_array_crossing_into_hole_gives_efault)
{
	struct iovec *v = array_before_hole(self, NIOV - 1);
	int k;

	fill(self, NIOV, 0);
	lay_out(self, v, NIOV - 1);
	EXPECT_EQ(-1, ua_obs_ret(writev(self->fd, v, NIOV)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ua_obs_ret(readv(self->fd, v, NIOV)));
	EXPECT_EQ(EFAULT, errno);
	/* Only part of the last iovec mapped. */
	for (k = 1; k < (int)sizeof(struct iovec); k++) {
		struct iovec *w = (struct iovec *)(self->area + self->size - k) -
				  (NIOV - 1);

		lay_out(self, w, NIOV - 1);
		/* sizeof(struct iovec) depends on the word size: not in the digest. */
		EXPECT_EQ(-1, writev(self->fd, w, NIOV));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%d bytes of the last iovec", k);
	}
}

TEST_F(iov, more_than_iov_max_gives_einval)
{
	struct iovec *v = array_before_hole(self, NIOV);

	lay_out(self, v, NIOV);
	EXPECT_EQ(-1, ua_obs_ret(writev(self->fd, v - 1, NIOV + 1)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ua_obs_ret(writev(self->fd, v, 0)));
}

TEST_F(iov, iovec_pointing_at_the_hole_ends_the_transfer_there)
{
	struct iovec *v = array_before_hole(self, NIOV);
	char *hole = self->area + self->size;
	char got[DATA];
	size_t before = 0;
	int i, bad = 600;

	fill(self, NIOV, 1);
	lay_out(self, v, NIOV);
	for (i = 0; i < bad; i++)
		before += v[i].iov_len;
	v[bad].iov_base = hole;
	v[bad].iov_len = 10;
	EXPECT_EQ((long)before, ua_obs_ret(writev(self->fd, v, NIOV)));
	EXPECT_EQ((long)before, pread(self->fd, got, sizeof(got), 0));
	EXPECT_EQ(0, memcmp(self->want, got, before));
	ua_obs(got, before);

	ASSERT_EQ(DATA, pwrite(self->fd, self->data, DATA, 0));
	ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ((long)before, ua_obs_ret(readv(self->fd, v, NIOV)));
	EXPECT_EQ((long)before, lseek(self->fd, 0, SEEK_CUR));
	/* Nothing at all before it: EFAULT. */
	v[0].iov_base = hole;
	v[0].iov_len = 1;
	EXPECT_EQ(-1, ua_obs_ret(writev(self->fd, v, NIOV)));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ua_obs_ret(readv(self->fd, v, NIOV)));
	EXPECT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
