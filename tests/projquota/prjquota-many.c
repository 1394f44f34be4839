// SPDX-License-Identifier: GPL-2.0
/*
 * Many projects on one mount, on the filesystem mounted at argv[1] (else
 * at $PROJQUOTA_DIR) with prjquota: MANY_COUNT files, each in a project of
 * its own, all found by Q_GETNEXTQUOTA with one inode and no space each,
 * and gone from the usage once they are unlinked.
 *
 * A program of its own, apart from prjquota.c, because it is slow under
 * QEMU TCG on a debug kernel (ext4 and XFS take minutes there), so that
 * tests/boots can run it where it fits: on tmpfs in every test boot, on
 * ext4 and XFS in the lean kernel's boot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/quota.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "projquota.h"

/* Below 65536 (XFS without projid32bit), apart from the other suites' IDs. */
#define MANY_BASE	30000u
#define MANY_COUNT	10000u

static const char *test_dir;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(many) {
	char dir[PATH_MAX];
	int mnt_fd;
};

FIXTURE_SETUP(many)
{
	self->mnt_fd = -1;
	if (!test_dir)
		SKIP(return, "no mount point given");
	if (!guest_mount_has_option(test_dir, "prjquota"))
		SKIP(return, "%s is not mounted with prjquota", test_dir);
	self->mnt_fd = open(test_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->mnt_fd);
	snprintf(self->dir, sizeof(self->dir), "%s/prjquota-many", test_dir);
	rm_tree(self->dir);
	ASSERT_EQ(0, mkdir(self->dir, 0755));
}

FIXTURE_TEARDOWN(many)
{
	if (self->mnt_fd < 0)
		return;
	rm_tree(self->dir);
	close(self->mnt_fd);
}

/*
 * Walk project IDs MANY_BASE.. with Q_GETNEXTQUOTA; count those found
 * with usage, and those among them with exactly one inode and no space.
 */
static int walk_many(int mnt_fd, unsigned int *used, unsigned int *one_inode)
{
	struct if_nextdqblk nd;
	__u32 id = MANY_BASE;
	int ret;

	*used = *one_inode = 0;
	while (id < MANY_BASE + MANY_COUNT) {
		ret = prj_quotactl(mnt_fd, Q_GETNEXTQUOTA, id, &nd);
		if (ret == -ENOENT)
			break;
		if (ret)
			return ret;
		if (nd.dqb_id < id)
			return -ERANGE;
		if (nd.dqb_id >= MANY_BASE + MANY_COUNT)
			break;
		if (nd.dqb_curinodes || nd.dqb_curspace)
			(*used)++;
		if (nd.dqb_curinodes == 1 && nd.dqb_curspace == 0)
			(*one_inode)++;
		id = nd.dqb_id + 1;
	}
	return 0;
}

/*
 * A project with no usage left may still be listed (ext4 keeps its entry
 * until the dquot is released; XFS skips it), with zero usage.
 */
TEST_F_TIMEOUT(many, getnextquota_walks_10000_projects, 900)
{
	unsigned int i, used, one_inode;
	char name[32];
	int dfd, fd, ret;
	double t0 = now();

	dfd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dfd);
	for (i = 0; i < MANY_COUNT; i++) {
		snprintf(name, sizeof(name), "%u", MANY_BASE + i);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
			    0644);
		ASSERT_LE(0, fd) TH_LOG("create %s: %s", name, strerror(errno));
		ret = set_project(fd, MANY_BASE + i, false);
		ASSERT_EQ(0, ret) TH_LOG("project %u: %s", MANY_BASE + i,
					 strerror(-ret));
		close(fd);
	}
	ASSERT_EQ(0, syncfs(dfd));
	/* Under QEMU TCG this is most of the suite's time: say how much. */
	ksft_print_msg("created %u files in %.1f s\n", MANY_COUNT, now() - t0);
	t0 = now();
	ret = walk_many(self->mnt_fd, &used, &one_inode);
	ASSERT_EQ(0, ret) TH_LOG("Q_GETNEXTQUOTA: %s", strerror(-ret));
	EXPECT_EQ(MANY_COUNT, used);
	EXPECT_EQ(MANY_COUNT, one_inode);
	ksft_print_msg("walk %.1f s\n", now() - t0);
	t0 = now();

	for (i = 0; i < MANY_COUNT; i++) {
		snprintf(name, sizeof(name), "%u", MANY_BASE + i);
		ASSERT_EQ(0, unlinkat(dfd, name, 0))
			TH_LOG("unlink %s: %s", name, strerror(errno));
	}
	close(dfd);
	ksft_print_msg("unlink %.1f s\n", now() - t0);
	t0 = now();
	/* Unlinked inodes may be freed in the background (XFS). */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, syncfs(self->mnt_fd));
		ret = walk_many(self->mnt_fd, &used, &one_inode);
		ASSERT_EQ(0, ret) TH_LOG("Q_GETNEXTQUOTA: %s", strerror(-ret));
		if (!used)
			break;
		usleep(100000);
	}
	ksft_print_msg("walks after unlink: %u, %.1f s\n", i + 1, now() - t0);
	EXPECT_EQ(0u, used) TH_LOG("projects still with usage after unlink");
}

GUEST_TEST_MAIN(test_dir, "PROJQUOTA_DIR")
