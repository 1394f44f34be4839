// SPDX-License-Identifier: GPL-2.0
/*
 * getdents64() (fs/readdir.c filldir64: unsafe_put_user() of the header,
 * unsafe_copy_dirent_name()) on a tmpfs directory of 10,000 entries with
 * names of every length 1..255, into buffers that end right before a hole
 * (unmapped or PROT_NONE page), at every alignment of their start, and into
 * buffers that claim more than is mapped.
 *
 * Expected from first principles: every name once, DT_REG (DT_DIR for "."
 * and ".."), d_reclen = ALIGN(19 + namelen + 1, 8); a call returns the
 * entries that fit, EINVAL when the next one does not fit at all. When the
 * claimed buffer runs into the hole, filldir64 faults at the first entry
 * whose header or name+NUL reaches the hole: the call returns the entries
 * before it, or EFAULT when it is the first, and the next call resumes at
 * it. d_ino and d_off are not part of the digest. The directory is made
 * once, by the first test's set-up, and left in /tmp (the guest's tmpfs).
 * Timeouts are for the debug kernels (KASAN) under TCG.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "uaccess.h"

#define NENT	10000
#define DIR	"/tmp/uaccess-getdents.d"
#define HDR	offsetof(struct linux_dirent64, d_name)	/* 19 */

struct linux_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static const char b62[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* Entry i: length 1 + i % 255, unique by (first char, length). */
static void entry_name(int i, char *name)
{
	int len = 1 + i % 255;

	name[0] = b62[i / 255];
	memset(name + 1, b62[i * 7 % 62], len - 1);
	name[len] = '\0';
}

static int entry_index(const char *name)
{
	char want[256];
	const char *q = strchr(b62, name[0]);
	int i, len = strlen(name);

	if (!q || !*q || len > 255)
		return -1;
	i = (q - b62) * 255 + len - 1;
	if (i >= NENT)
		return -1;
	entry_name(i, want);
	return strcmp(want, name) ? -1 : i;
}

static int reclen(int namelen)
{
	return (HDR + namelen + 1 + 7) & ~7;
}

/* The reference order: names of the first walk (lengths are enough). */
static int order_len[NENT + 2];
static char order_name[NENT + 2][256];

FIXTURE(dir) {
	int fd;
	char *area;		/* two pages between holes */
	long ps;
};

UA_HOLE_VARIANTS(dir);

static long getdents(int fd, void *buf, unsigned int count)
{
	return syscall(__NR_getdents64, fd, buf, count);
}

FIXTURE_SETUP(dir)
{
	char name[256];
	int i, dfd;

	self->ps = ua_page_size();
	self->area = ua_map_between_holes(2, variant->prot_none, 0);
	ASSERT_NE(NULL, self->area);
	if (access(DIR ".complete", F_OK)) {
		/* Again after an interrupted set-up: what is there stays. */
		ASSERT_TRUE(!mkdir(DIR, 0755) || errno == EEXIST);
		dfd = open(DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, dfd);
		for (i = 0; i < NENT; i++) {
			entry_name(i, name);
			ASSERT_TRUE(!mknodat(dfd, name, S_IFREG | 0600, 0) || errno == EEXIST)
				TH_LOG("%s: %s", name, strerror(errno));
		}
		close(dfd);
		/* The marker lives beside it, not in it. */
		dfd = open(DIR ".complete", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		ASSERT_LE(0, dfd);
		close(dfd);
	}
	self->fd = open(DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dir)
{
}

/*
 * Walk the whole directory with buffers of @count bytes at @buf, of which
 * @mapped are before the hole. Checks every entry against the reference
 * order (recorded by the first walk, which also checks the set) and
 * returns the number of entries, or -1.
 */
static int walk(struct __test_metadata *_metadata, FIXTURE_DATA(dir) *self,
		char *buf, unsigned int count, unsigned int mapped, int record)
{
	static char seen[NENT];
	int n = 0, dots = 0;
	long ret;

	memset(seen, 0, sizeof(seen));
	if (lseek(self->fd, 0, SEEK_SET))
		return -1;
	for (;;) {
		long pos = 0;
		unsigned int want = 0;
		int k;

		/* What fits, from first principles. */
		for (k = n; k < NENT + 2; k++) {
			int r = reclen(order_len[k]);

			if (want + r > count || want + HDR + order_len[k] + 1 > mapped)
				break;
			want += r;
		}
		ret = ua_obs_ret(getdents(self->fd, buf, count));
		if (record) {
			want = ret;	/* the first walk records what it sees */
		} else if (n == NENT + 2) {
			want = 0;
		} else if (!want) {
			int r = reclen(order_len[n]);

			EXPECT_EQ(-1, ret);
			EXPECT_EQ(r > (int)count ? EINVAL : EFAULT, errno)
				TH_LOG("entry %d, count %u mapped %u", n, count, mapped);
			return -1;
		}
		EXPECT_EQ((long)want, ret) TH_LOG("entry %d, count %u mapped %u: want %u got %ld: %s",
						  n, count, mapped, want, ret, strerror(errno));
		if (ret <= 0)
			break;
		while (pos < ret) {
			struct linux_dirent64 d;
			char *name = buf + pos + HDR;
			int len = strlen(name), i;

			memcpy(&d, buf + pos, HDR);
			ua_obs_long(d.d_reclen);
			ua_obs_long(d.d_type);
			ua_obs(name, len + 1);
			EXPECT_EQ(reclen(len), d.d_reclen) TH_LOG("%s", name);
			if (record) {
				order_len[n] = len;
				strcpy(order_name[n], name);
				if (!strcmp(name, ".") || !strcmp(name, "..")) {
					dots++;
					EXPECT_EQ(DT_DIR, d.d_type);
				} else {
					i = entry_index(name);
					EXPECT_LE(0, i) TH_LOG("unexpected %s", name);
					if (i >= 0) {
						EXPECT_EQ(0, seen[i]) TH_LOG("twice %s", name);
						seen[i] = 1;
					}
					EXPECT_EQ(DT_REG, d.d_type);
				}
			} else if (strcmp(order_name[n], name)) {
				EXPECT_STREQ(order_name[n], name) TH_LOG("entry %d", n);
				return -1;
			}
			if (d.d_reclen < HDR + 2 || n >= NENT + 2)
				return -1;
			pos += d.d_reclen;
			n++;
		}
	}
	if (record)
		EXPECT_EQ(2, dots);
	return n;
}

static void reference(struct __test_metadata *_metadata, FIXTURE_DATA(dir) *self)
{
	static char big[65536];

	ASSERT_EQ(NENT + 2, walk(_metadata, self, big, sizeof(big), sizeof(big), 1));
}

TEST_F_TIMEOUT(dir, all_10000_entries_come_back_once_with_their_reclen_and_type, 300)
{
	reference(_metadata, self);
}

TEST_F_TIMEOUT(dir, buffers_ending_before_hole_at_every_alignment, 300)
{
	char *hole = self->area + 2 * self->ps;
	int a;

	reference(_metadata, self);
	for (a = 0; a < 8; a++)
		EXPECT_EQ(NENT + 2, walk(_metadata, self, hole - 4096 + a,
					 4096 - a, 4096 - a, 0)) TH_LOG("align %d", a);
	/*
	 * Just the largest entry (255 characters: 280 bytes): 10,000 calls, on
	 * one of the two kinds of hole only (arm under TCG is slow at this).
	 */
	if (!variant->prot_none)
		EXPECT_EQ(NENT + 2, walk(_metadata, self, hole - 280, 280, 280, 0));
	EXPECT_TRUE(ua_is_hole(hole, variant->prot_none));
}

TEST_F_TIMEOUT(dir, buffer_too_small_for_the_next_entry_gives_einval, 300)
{
	char *hole = self->area + 2 * self->ps;

	reference(_metadata, self);
	/* 279 bytes: the walk stops with EINVAL at the first 255-character name. */
	EXPECT_EQ(-1, walk(_metadata, self, hole - 279, 279, 279, 0));
}

TEST_F_TIMEOUT(dir, buffer_running_into_hole_returns_what_fits_then_efault, 300)
{
	char *hole = self->area + 2 * self->ps;
	int m;

	reference(_metadata, self);
	/*
	 * Claims 4096 bytes, 1000 + m of them mapped: each call stops at the
	 * first entry that does not fit in what is mapped, the next resumes there.
	 * m = 0, 5 before an unmapped page, 3 before a PROT_NONE one.
	 */
	for (m = variant->prot_none ? 3 : 0; m < 8; m += 5)
		EXPECT_EQ(NENT + 2, walk(_metadata, self, hole - 1000 - m, 4096, 1000 + m, 0))
			TH_LOG("mapped %d", 1000 + m);
	/* Starting in the hole. */
	ASSERT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(-1, ua_obs_ret(getdents(self->fd, hole, 4096)));
	EXPECT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
