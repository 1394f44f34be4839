// SPDX-License-Identifier: GPL-2.0
/*
 * strncpy_from_user() and strnlen_user() (lib/strncpy_from_user.c,
 * lib/strnlen_user.c, word at a time) through real syscalls, with strings
 * placed against a hole (an unmapped or PROT_NONE page):
 *
 *   getname() of access()           strncpy_from_user(.., PATH_MAX)
 *   prctl(PR_SET_NAME)              strncpy_from_user(.., 15)
 *   fsopen()'s strndup_user()       strnlen_user(.., PAGE_SIZE)
 *
 * Lengths 0..UA_MAXLEN (2 words + 1 on 64-bit, more than that on 32-bit),
 * at every alignment (the gap between the NUL and the hole runs over 0..7),
 * crossing into the hole, and at the count limits. Expected results come
 * from the syscalls' definitions. PATH_MAX is 4096 and fsopen's limit is
 * PAGE_SIZE; the test computes where the limit cases go from the page size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "uaccess.h"

#ifndef __NR_fsopen
#define __NR_fsopen 430	/* the same on every architecture */
#endif

static const char alpha[] = "abcdefghijklmnopqrstuvwxyz";

FIXTURE(strings) {
	char *page;	/* two pages between holes */
	long ps;
	char dir[64];
};

UA_HOLE_VARIANTS(strings);

FIXTURE_SETUP(strings)
{
	char name[UA_MAXLEN + 1];
	int len, fd;

	self->ps = ua_page_size();
	self->page = ua_map_between_holes(2, variant->prot_none, 'X');
	ASSERT_NE(NULL, self->page);
	strcpy(self->dir, "/tmp/uaccess-strings.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, chdir(self->dir));
	/* Files named by the first LEN letters, LEN 1..UA_MAXLEN. */
	for (len = 1; len <= UA_MAXLEN; len++) {
		memcpy(name, alpha, len);
		name[len] = '\0';
		fd = open(name, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		ASSERT_LE(0, fd);
		close(fd);
	}
}

FIXTURE_TEARDOWN(strings)
{
	char name[UA_MAXLEN + 1];
	int len;

	for (len = 1; len <= UA_MAXLEN; len++) {
		memcpy(name, alpha, len);
		name[len] = '\0';
		unlink(name);
	}
	if (chdir("/") == 0)
		rmdir(self->dir);
}

/* End of the mapped area: the hole starts here. */
static char *hole(FIXTURE_DATA(strings) *self)
{
	return self->page + 2 * self->ps;
}

/* Put @len letters and a NUL so that @gap bytes of 'X' follow, up to the hole. */
static char *place(FIXTURE_DATA(strings) *self, int len, int gap)
{
	char *s = hole(self) - gap - 1 - len;

	memset(self->page, 'X', 2 * self->ps);
	memcpy(s, alpha, len);
	s[len] = '\0';
	return s;
}

/* @len letters right before the hole, no NUL. */
static char *place_crossing(FIXTURE_DATA(strings) *self, int len)
{
	char *s = hole(self) - len;

	memset(self->page, 'X', 2 * self->ps);
	memcpy(s, alpha, len);
	return s;
}

TEST_F(strings, path_ending_before_hole_is_read_at_every_length_and_alignment)
{
	int len, gap;

	for (len = 0; len <= UA_MAXLEN; len++) {
		for (gap = 0; gap < 8; gap++) {
			long ret = ua_obs_ret(access(place(self, len, gap), F_OK));

			if (len) {
				EXPECT_EQ(0, ret) TH_LOG("len %d gap %d: %s", len, gap, strerror(errno));
			} else {
				EXPECT_EQ(ENOENT, ret ? errno : 0) TH_LOG("empty path");
			}
		}
	}
	EXPECT_TRUE(ua_is_hole(hole(self), variant->prot_none));
}

TEST_F(strings, path_starting_after_hole_is_read)
{
	int len;

	for (len = 0; len <= UA_MAXLEN; len++) {
		char *s = self->page;
		long ret;

		memcpy(s, alpha, len);
		s[len] = '\0';
		ret = ua_obs_ret(access(s, F_OK));
		if (len) {
			EXPECT_EQ(0, ret) TH_LOG("len %d: %s", len, strerror(errno));
		} else {
			EXPECT_EQ(ENOENT, ret ? errno : 0);
		}
	}
}

TEST_F(strings, path_crossing_into_hole_gives_efault)
{
	int len;

	for (len = 0; len <= 3 * 8; len++) {
		long ret = ua_obs_ret(access(place_crossing(self, len), F_OK));

		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EFAULT, errno) TH_LOG("len %d", len);
	}
}

/*
 * "////...": PATH_MAX - 1 slashes and the NUL name "/"; PATH_MAX bytes
 * without a NUL are too long even when the hole follows them (the copy
 * stops at the count), and PATH_MAX - 1 without a NUL fault. Lengths just
 * below run over the kernel's switch from the embedded name to a separate
 * buffer (EMBEDDED_NAME_MAX, which depends on the arch's struct size).
 */
TEST_F(strings, path_at_path_max_before_hole)
{
	char *h = hole(self);
	int len;

	ASSERT_LE(4096, 2 * self->ps);
	for (len = 4096 - 100; len < 4096; len++) {
		memset(self->page, '/', 2 * self->ps);
		h[-1] = '\0';
		EXPECT_EQ(0, ua_obs_ret(access(h - 1 - len, F_OK))) TH_LOG("len %d", len);
	}
	memset(self->page, '/', 2 * self->ps);
	EXPECT_EQ(-1, ua_obs_ret(access(h - 4096, F_OK)));
	EXPECT_EQ(ENAMETOOLONG, errno);
	EXPECT_EQ(-1, ua_obs_ret(access(h - 4095, F_OK)));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(strings, prctl_set_name_reads_up_to_15_bytes_before_hole)
{
	char got[16], want[16];
	int len, gap;

	for (len = 0; len <= UA_MAXLEN; len++) {
		for (gap = 0; gap < 8; gap++) {
			memset(got, 0, sizeof(got));
			memset(want, 0, sizeof(want));
			memcpy(want, alpha, len < 15 ? len : 15);
			EXPECT_EQ(0, ua_obs_ret(prctl(PR_SET_NAME, place(self, len, gap))));
			EXPECT_EQ(0, prctl(PR_GET_NAME, got));
			ua_obs(got, sizeof(got));
			EXPECT_EQ(0, memcmp(want, got, 16)) TH_LOG("len %d gap %d: %s", len, gap, got);
		}
	}
	/* Without a NUL: 15 or more bytes are enough, fewer fault. */
	for (len = 0; len <= UA_MAXLEN; len++) {
		long ret = ua_obs_ret(prctl(PR_SET_NAME, place_crossing(self, len)));

		if (len >= 15) {
			EXPECT_EQ(0, ret) TH_LOG("len %d: %s", len, strerror(errno));
			memset(got, 0, sizeof(got));
			EXPECT_EQ(0, prctl(PR_GET_NAME, got));
			ua_obs(got, sizeof(got));
			EXPECT_EQ(0, memcmp(alpha, got, 15));
		} else {
			EXPECT_EQ(-1, ret);
			EXPECT_EQ(EFAULT, errno) TH_LOG("len %d", len);
		}
	}
}

static long fsopen_str(const char *s)
{
	long fd = syscall(__NR_fsopen, s, 0);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

TEST_F(strings, fsopen_name_before_hole_is_measured_at_every_alignment)
{
	int len, gap;

	for (gap = 0; gap < 8; gap++) {
		char *s = hole(self) - gap - 6;

		memset(self->page, 'X', 2 * self->ps);
		memcpy(s, "tmpfs", 6);
		EXPECT_EQ(0, ua_obs_ret(fsopen_str(s))) TH_LOG("gap %d: %s", gap, strerror(errno));
	}
	for (len = 0; len <= UA_MAXLEN; len++) {
		for (gap = 0; gap < 8; gap++) {
			EXPECT_EQ(-1, ua_obs_ret(fsopen_str(place(self, len, gap))));
			EXPECT_EQ(ENODEV, errno) TH_LOG("len %d gap %d", len, gap);
		}
	}
	for (len = 0; len <= 3 * 8; len++) {
		EXPECT_EQ(-1, ua_obs_ret(fsopen_str(place_crossing(self, len))));
		EXPECT_EQ(EFAULT, errno) TH_LOG("len %d", len);
	}
}

/* strnlen_user(.., PAGE_SIZE): a PAGE_SIZE name without NUL is too long (EINVAL). */
TEST_F(strings, fsopen_name_at_page_size_limit_before_hole)
{
	char *h = hole(self);
	int a;

	for (a = 0; a < 8; a++) {
		memset(self->page, 'X', 2 * self->ps);
		h[-1 - a] = '\0';
		EXPECT_EQ(-1, ua_obs_ret(fsopen_str(h - a - self->ps)));
		EXPECT_EQ(ENODEV, errno) TH_LOG("align %d", a);
		memset(self->page, 'X', 2 * self->ps);
		EXPECT_EQ(-1, ua_obs_ret(fsopen_str(h - a - self->ps)));
		EXPECT_EQ(EINVAL, errno) TH_LOG("align %d", a);
		EXPECT_EQ(-1, ua_obs_ret(fsopen_str(h + 1 - a - self->ps)));
		EXPECT_EQ(a ? EINVAL : EFAULT, errno) TH_LOG("align %d", a);
	}
}

TEST_HARNESS_MAIN
