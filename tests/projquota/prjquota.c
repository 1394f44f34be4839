// SPDX-License-Identifier: GPL-2.0
/*
 * Project quota conformance: accounting, limits and enforcement of
 * PRJQUOTA as seen through quotactl_fd(2), FS_IOC_FSSETXATTR and statfs.
 *
 *   prjquota MOUNTPOINT [kselftest harness options]
 *
 * tests the filesystem mounted on MOUNTPOINT (else on $PROJQUOTA_DIR),
 * which must be mounted with prjquota, else every test skips. The same
 * tests run on ext4 (mkfs -O quota,project), on XFS and on tmpfs,
 * fstests-style: a test never asks which filesystem it runs on. Where
 * ext4 and XFS are known to differ, the comment at the test says which
 * one tmpfs follows (tmpfs keeps its quota in the VFS quota core, as ext4
 * does), the test asserts that, and tests/known-differences names the
 * case for the other filesystem.
 *
 * Every test works in a fresh mkdtemp() directory (project 0) below the
 * mount point, with a PROJINHERIT directory "p" in a project ID of its
 * own (PRJ_BASE + PRJ_PER_TEST * the test's index; IDs up to
 * PRJ_PER_TEST - 1 above it are the test's too). Limits are set relative
 * to the project's usage as measured, since the project directory itself
 * is charged (a block and an inode on ext4, an inode on XFS). Usage is
 * read after syncfs(): Q_GETQUOTA's dqb_curspace includes reserved
 * (delayed allocation) space, but XFS, for one, starts its allocation
 * and quota transactions only at writeback. Space freed by an unlink
 * shows later still on XFS, which inactivates unlinked inodes in a
 * background worker (xfs_inodegc_queue()) that syncfs() does not wait for:
 * where usage must go down after an unlink, the test waits for it, for a
 * bounded time.
 *
 * The VFS quota core enforces hard limits only against callers without
 * CAP_SYS_RESOURCE (ignore_hardlimit() in fs/quota/dquot.c; XFS against
 * everyone), so the enforcement tests drop that capability in a forked
 * child.
 *
 * Many projects on one mount are tested by prjquota-many.c.
 *
 * Needs root: without it, every test skips.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/dqblk_xfs.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/quota.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "projquota.h"

/*
 * Project IDs: each test owns PRJ_PER_TEST of them from PRJ_BASE on
 * (prjquota-many.c uses 30000 and up). Below 65536, so
 * that XFS without projid32bit takes them too, and apart from the IDs of
 * the projid suite (4701, 4702).
 */
#define PRJ_BASE	20000u
#define PRJ_PER_TEST	4u

static const char *test_dir;

static int get_projid(const char *path, __u32 *projid)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct fsxattr fsx;
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		ret = -errno;
	else
		*projid = fsx.fsx_projid;
	close(fd);
	return ret;
}

/* Write @len bytes of @c at @off; 0 or the errno of the failing write. */
static int write_bytes(int fd, off_t off, size_t len, int c)
{
	char *buf = malloc(len);
	size_t done = 0;
	ssize_t n;
	int ret = 0;

	if (!buf)
		return ENOMEM;
	memset(buf, c, len);
	while (done < len) {
		n = pwrite(fd, buf + done, len - done, off + done);
		if (n <= 0) {
			ret = n ? errno : EIO;
			break;
		}
		done += n;
	}
	free(buf);
	return ret;
}

/* Position of @t in its fixture's list of tests, which is the run order. */
static unsigned int test_index(const struct __test_metadata *t)
{
	unsigned int i = 0;

	for (; t != t->fixture->tests; t = t->prev)
		i++;
	return i;
}

struct usage {
	__u64 space;	/* bytes, including reserved space */
	__u64 inodes;
};

FIXTURE(prjquota) {
	char dir[PATH_MAX];	/* scratch directory, project 0 */
	char pdir[PATH_MAX];	/* dir/p: project prj, PROJINHERIT */
	int mnt_fd;		/* the mount point, for quotactl_fd() */
	__u32 prj;		/* first of the test's PRJ_PER_TEST IDs */
	unsigned long bsize;	/* statfs f_bsize of the filesystem */
	bool restore_info;	/* put saved_info back at teardown */
	struct if_dqinfo saved_info;
};

FIXTURE_SETUP(prjquota)
{
	struct statfs sfs;
	int ret;

	self->mnt_fd = -1;
	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (!test_dir)
		SKIP(return, "no mount point given");
	if (!guest_mount_has_option(test_dir, "prjquota"))
		SKIP(return, "%s is not mounted with prjquota", test_dir);
	self->mnt_fd = open(test_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->mnt_fd) TH_LOG("open %s: %s", test_dir,
					  strerror(errno));
	ASSERT_EQ(0, fstatfs(self->mnt_fd, &sfs));
	self->bsize = sfs.f_bsize;
	self->prj = PRJ_BASE + PRJ_PER_TEST * test_index(_metadata);

	join(self->dir, test_dir, "prjquota.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir))
		TH_LOG("mkdtemp in %s: %s", test_dir, strerror(errno));
	join(self->pdir, self->dir, "p");
	ret = set_project_path(self->dir, 0, false);
	if (!ret)
		ret = mkdir(self->pdir, 0755) ? -errno : 0;
	if (!ret)
		ret = set_project_path(self->pdir, self->prj, true);
	if (ret)	/* no teardown after a failed setup */
		rm_tree(self->dir);
	ASSERT_EQ(0, ret) TH_LOG("project directory %s in project %u: %s",
				 self->pdir, self->prj, strerror(-ret));
}

static int set_limits(int mnt_fd, __u32 id, __u64 bsoft_kib, __u64 bhard_kib,
		      __u64 isoft, __u64 ihard)
{
	struct if_dqblk dq = {
		.dqb_bsoftlimit = bsoft_kib,
		.dqb_bhardlimit = bhard_kib,
		.dqb_isoftlimit = isoft,
		.dqb_ihardlimit = ihard,
		.dqb_valid = QIF_LIMITS,
	};

	return prj_quotactl(mnt_fd, Q_SETQUOTA, id, &dq);
}

FIXTURE_TEARDOWN(prjquota)
{
	unsigned int i;
	int ret;

	if (self->dir[0] && rm_tree(self->dir))
		TH_LOG("cannot remove %s: %s", self->dir, strerror(errno));
	if (self->mnt_fd < 0)
		return;
	for (i = 0; i < PRJ_PER_TEST; i++) {
		ret = set_limits(self->mnt_fd, self->prj + i, 0, 0, 0, 0);
		if (ret)
			TH_LOG("resetting limits of project %u: %s",
			       self->prj + i, strerror(-ret));
	}
	if (self->restore_info &&
	    prj_quotactl(self->mnt_fd, Q_SETINFO, 0, &self->saved_info))
		TH_LOG("cannot restore the grace times: %s", strerror(errno));
	close(self->mnt_fd);
}

/* @buf = the project directory / @name */
static char *ppath(FIXTURE_DATA(prjquota) *self, char *buf, const char *name)
{
	return join(buf, self->pdir, name);
}

static void get_dqblk(struct __test_metadata *_metadata,
		      FIXTURE_DATA(prjquota) *self, __u32 id,
		      struct if_dqblk *dq)
{
	int ret;

	ASSERT_EQ(0, syncfs(self->mnt_fd)) TH_LOG("syncfs: %s", strerror(errno));
	memset(dq, 0, sizeof(*dq));
	ret = prj_quotactl(self->mnt_fd, Q_GETQUOTA, id, dq);
	ASSERT_EQ(0, ret) TH_LOG("Q_GETQUOTA of project %u: %s", id,
				 strerror(-ret));
}

static struct usage read_usage(struct __test_metadata *_metadata,
			       FIXTURE_DATA(prjquota) *self, __u32 id)
{
	struct if_dqblk dq;

	get_dqblk(_metadata, self, id, &dq);
	return (struct usage){ dq.dqb_curspace, dq.dqb_curinodes };
}

/*
 * The usage of project @id once it has gone down to @want, or after ten
 * seconds whatever it is then: unlinked inodes may be freed in the
 * background (XFS).
 */
static struct usage wait_usage(struct __test_metadata *_metadata,
			       FIXTURE_DATA(prjquota) *self, __u32 id,
			       struct usage want)
{
	struct usage u;
	int i;

	for (i = 0; i < 1000; i++) {
		u = read_usage(_metadata, self, id);
		if (u.space <= want.space && u.inodes <= want.inodes)
			break;
		usleep(10000);
	}
	return u;
}

static void limit(struct __test_metadata *_metadata,
		  FIXTURE_DATA(prjquota) *self, __u32 id, __u64 bsoft_kib,
		  __u64 bhard_kib, __u64 isoft, __u64 ihard)
{
	int ret = set_limits(self->mnt_fd, id, bsoft_kib, bhard_kib, isoft,
			     ihard);

	ASSERT_EQ(0, ret) TH_LOG("Q_SETQUOTA of project %u: %s", id,
				 strerror(-ret));
}

/* Bytes allocated to the file at @fd, as stat reports them. */
static __u64 file_bytes(struct __test_metadata *_metadata, int fd)
{
	struct stat st;

	ASSERT_EQ(0, fstat(fd, &st)) TH_LOG("fstat: %s", strerror(errno));
	return (__u64)st.st_blocks * 512;
}

/*
 * The project's usage is @base plus the blocks allocated to the file at
 * @fd, exactly, and one inode more; returns those bytes.
 */
static __u64 expect_charged(struct __test_metadata *_metadata,
			    FIXTURE_DATA(prjquota) *self, int fd,
			    struct usage base)
{
	struct usage u = read_usage(_metadata, self, self->prj);
	__u64 bytes = file_bytes(_metadata, fd);

	EXPECT_EQ(base.space + bytes, u.space)
		TH_LOG("curspace %llu, before the file %llu, file %llu bytes",
		       (unsigned long long)u.space,
		       (unsigned long long)base.space,
		       (unsigned long long)bytes);
	EXPECT_EQ(base.inodes + 1, u.inodes);
	return bytes;
}

static int create_file(struct __test_metadata *_metadata, const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);

	ASSERT_LE(0, fd) TH_LOG("create %s: %s", path, strerror(errno));
	return fd;
}

/* Create @path with @len bytes of data, written back; returns its fd. */
static int data_file(struct __test_metadata *_metadata, const char *path,
		     size_t len)
{
	int fd = create_file(_metadata, path);
	int ret = write_bytes(fd, 0, len, 'd');

	ASSERT_EQ(0, ret) TH_LOG("write %zu bytes to %s: %s", len, path,
				 strerror(ret));
	ASSERT_EQ(0, fsync(fd)) TH_LOG("fsync %s: %s", path, strerror(errno));
	return fd;
}

/* @bytes rounded up to whole filesystem blocks */
static __u64 round_blocks(FIXTURE_DATA(prjquota) *self, __u64 bytes)
{
	return (bytes + self->bsize - 1) / self->bsize * self->bsize;
}

/* A block limit @extra bytes above the usage @u, in 1 KiB units. */
static __u64 kib_above(struct __test_metadata *_metadata,
		       FIXTURE_DATA(prjquota) *self, struct usage u,
		       __u64 extra)
{
	/* Every filesystem here charges whole blocks. */
	EXPECT_EQ(0ull, u.space % self->bsize)
		TH_LOG("curspace %llu is not in %lu-byte blocks",
		       (unsigned long long)u.space, self->bsize);
	return (round_blocks(self, u.space) + round_blocks(self, extra)) / 1024;
}

/*
 * Make @name beside the project directory, in project @id with
 * PROJINHERIT, so that the project has usage (XFS reports a project
 * without any as ENOENT, see getquota_of_unused_project_reports_zero_usage).
 */
static void make_project_dir(struct __test_metadata *_metadata,
			     FIXTURE_DATA(prjquota) *self, const char *name,
			     __u32 id)
{
	char d[PATH_MAX];
	int ret;

	join(d, self->dir, name);
	ASSERT_EQ(0, mkdir(d, 0755)) TH_LOG("mkdir %s: %s", d, strerror(errno));
	ret = set_project_path(d, id, true);
	ASSERT_EQ(0, ret) TH_LOG("project %u on %s: %s", id, d, strerror(-ret));
}

static void expect_projid(struct __test_metadata *_metadata, const char *path,
			  __u32 projid)
{
	__u32 got = ~0u;
	int ret = get_projid(path, &got);

	ASSERT_EQ(0, ret) TH_LOG("FS_IOC_FSGETXATTR on %s: %s", path,
				 strerror(-ret));
	EXPECT_EQ(projid, got) TH_LOG("project ID of %s", path);
}

TEST_F(prjquota, getinfo_succeeds_for_project_quota)
{
	struct if_dqinfo info;
	int ret;

	memset(&info, 0, sizeof(info));
	ret = prj_quotactl(self->mnt_fd, Q_GETINFO, 0, &info);
	ASSERT_EQ(0, ret) TH_LOG("Q_GETINFO: %s", strerror(-ret));
	EXPECT_EQ((__u32)(IIF_BGRACE | IIF_IGRACE),
		  info.dqi_valid & (IIF_BGRACE | IIF_IGRACE));
}

TEST_F(prjquota, xgetqstatv_reports_project_accounting_and_enforcement)
{
	struct fs_quota_statv st;
	int ret;

	memset(&st, 0, sizeof(st));
	st.qs_version = FS_QSTATV_VERSION1;
	ret = prj_quotactl(self->mnt_fd, Q_XGETQSTATV, 0, &st);
	ASSERT_EQ(0, ret) TH_LOG("Q_XGETQSTATV: %s", strerror(-ret));
	EXPECT_TRUE(st.qs_flags & FS_QUOTA_PDQ_ACCT)
		TH_LOG("qs_flags %#x", st.qs_flags);
	EXPECT_TRUE(st.qs_flags & FS_QUOTA_PDQ_ENFD)
		TH_LOG("qs_flags %#x", st.qs_flags);
}

TEST_F(prjquota, setquota_limits_round_trip_through_getquota)
{
	struct usage u = read_usage(_metadata, self, self->prj);
	__u64 bsoft = kib_above(_metadata, self, u, 40 * self->bsize);
	__u64 bhard = kib_above(_metadata, self, u, 80 * self->bsize);
	struct if_dqblk dq;

	limit(_metadata, self, self->prj, bsoft, bhard, u.inodes + 10,
	      u.inodes + 20);
	get_dqblk(_metadata, self, self->prj, &dq);
	EXPECT_EQ(bsoft, dq.dqb_bsoftlimit);
	EXPECT_EQ(bhard, dq.dqb_bhardlimit);
	EXPECT_EQ(u.inodes + 10, dq.dqb_isoftlimit);
	EXPECT_EQ(u.inodes + 20, dq.dqb_ihardlimit);
	EXPECT_EQ(u.space, dq.dqb_curspace);
	EXPECT_EQ(u.inodes, dq.dqb_curinodes);
}

/* Q_XGETQUOTA counts blocks in 512-byte units. */
TEST_F(prjquota, xgetquota_shows_limits_set_with_setquota)
{
	struct usage u = read_usage(_metadata, self, self->prj);
	__u64 bsoft = kib_above(_metadata, self, u, 40 * self->bsize);
	__u64 bhard = kib_above(_metadata, self, u, 80 * self->bsize);
	struct fs_disk_quota d;
	int ret;

	limit(_metadata, self, self->prj, bsoft, bhard, u.inodes + 10,
	      u.inodes + 20);
	memset(&d, 0, sizeof(d));
	ret = prj_quotactl(self->mnt_fd, Q_XGETQUOTA, self->prj, &d);
	ASSERT_EQ(0, ret) TH_LOG("Q_XGETQUOTA: %s", strerror(-ret));
	EXPECT_EQ(FS_PROJ_QUOTA, d.d_flags);
	EXPECT_EQ(self->prj, d.d_id);
	EXPECT_EQ(bsoft * 2, d.d_blk_softlimit);
	EXPECT_EQ(bhard * 2, d.d_blk_hardlimit);
	EXPECT_EQ(u.inodes + 10, d.d_ino_softlimit);
	EXPECT_EQ(u.inodes + 20, d.d_ino_hardlimit);
	EXPECT_EQ(u.space / 512, d.d_bcount);
	EXPECT_EQ(u.inodes, d.d_icount);
}

/*
 * The walk may pass other projects (of earlier tests; ext4 keeps an
 * entry until its dquot is released, XFS skips empty ones) but must stop
 * at this one, with the usage Q_GETQUOTA reports.
 */
TEST_F(prjquota, getnextquota_finds_project_with_usage)
{
	struct if_nextdqblk nd;
	struct usage u;
	char f[PATH_MAX];
	__u32 id = 1;
	int ret;

	close(data_file(_metadata, ppath(self, f, "f"), 64 * 1024));
	u = read_usage(_metadata, self, self->prj);
	for (;;) {
		memset(&nd, 0, sizeof(nd));
		ret = prj_quotactl(self->mnt_fd, Q_GETNEXTQUOTA, id, &nd);
		ASSERT_EQ(0, ret) TH_LOG("Q_GETNEXTQUOTA from %u: %s", id,
					 strerror(-ret));
		ASSERT_LE(id, nd.dqb_id);
		if (nd.dqb_id >= self->prj)
			break;
		id = nd.dqb_id + 1;
	}
	ASSERT_EQ(self->prj, nd.dqb_id);
	EXPECT_EQ(u.space, nd.dqb_curspace);
	EXPECT_EQ(u.inodes, nd.dqb_curinodes);
	EXPECT_EQ(2ull, nd.dqb_curinodes);	/* p and p/f */

	/* From the next ID on, this one is not found again. */
	ret = prj_quotactl(self->mnt_fd, Q_GETNEXTQUOTA, self->prj + 1, &nd);
	if (ret) {
		EXPECT_EQ(-ENOENT, ret);
	} else {
		EXPECT_LT(self->prj, nd.dqb_id);
	}
}

/*
 * A project ID nothing was ever charged to has zero usage and no limits.
 * Here ext4 and XFS differ: XFS answers ENOENT for a dquot with no usage
 * and no limits (xfs_qm_scall_getquota(): "this dquot doesn't quite
 * exist as far as our utility programs are concerned"), the VFS quota
 * core (dquot_get_dqblk()) reports zeros. tmpfs follows ext4.
 */
TEST_F(prjquota, getquota_of_unused_project_reports_zero_usage)
{
	struct if_dqblk dq;
	int ret;

	memset(&dq, 0xff, sizeof(dq));
	ret = prj_quotactl(self->mnt_fd, Q_GETQUOTA, self->prj + 1, &dq);
	ASSERT_EQ(0, ret) TH_LOG("Q_GETQUOTA of unused project %u: %s",
				 self->prj + 1, strerror(-ret));
	EXPECT_EQ(0ull, dq.dqb_curspace);
	EXPECT_EQ(0ull, dq.dqb_curinodes);
	EXPECT_EQ(0ull, dq.dqb_bhardlimit);
	EXPECT_EQ(0ull, dq.dqb_ihardlimit);
}

TEST_F(prjquota, create_charges_one_inode_and_unlink_releases_it)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	char f[PATH_MAX];

	close(create_file(_metadata, ppath(self, f, "f")));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(base.inodes + 1, u.inodes);
	EXPECT_EQ(base.space, u.space);
	ASSERT_EQ(0, unlink(f));
	u = wait_usage(_metadata, self, self->prj, base);
	EXPECT_EQ(base.inodes, u.inodes);
	EXPECT_EQ(base.space, u.space);
}

TEST_F(prjquota, write_charges_allocated_blocks)
{
	struct usage base = read_usage(_metadata, self, self->prj);
	char f[PATH_MAX];
	int fd = data_file(_metadata, ppath(self, f, "f"), 64 * self->bsize);

	EXPECT_LE(64 * self->bsize, expect_charged(_metadata, self, fd, base));
	close(fd);
}

TEST_F(prjquota, truncate_releases_blocks)
{
	struct usage base = read_usage(_metadata, self, self->prj);
	char f[PATH_MAX];
	int fd = data_file(_metadata, ppath(self, f, "f"), 64 * self->bsize);
	__u64 before = expect_charged(_metadata, self, fd, base);

	ASSERT_EQ(0, ftruncate(fd, 16 * self->bsize));
	ASSERT_EQ(0, fsync(fd));
	EXPECT_GT(before, expect_charged(_metadata, self, fd, base));
	close(fd);
}

TEST_F(prjquota, fallocate_charges_allocated_blocks)
{
	struct usage base = read_usage(_metadata, self, self->prj);
	char f[PATH_MAX];
	int fd = create_file(_metadata, ppath(self, f, "f"));
	__u64 bytes;

	ASSERT_EQ(0, fallocate(fd, 0, 0, 64 * self->bsize))
		TH_LOG("fallocate: %s", strerror(errno));
	bytes = expect_charged(_metadata, self, fd, base);
	EXPECT_LE(64 * self->bsize, bytes);
	/* ... and beyond EOF */
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, 64 * self->bsize,
			       32 * self->bsize))
		TH_LOG("fallocate: %s", strerror(errno));
	EXPECT_LE(bytes + 32 * self->bsize,
		  expect_charged(_metadata, self, fd, base));
	close(fd);
}

TEST_F(prjquota, punch_hole_releases_blocks)
{
	struct usage base = read_usage(_metadata, self, self->prj);
	char f[PATH_MAX];
	int fd = data_file(_metadata, ppath(self, f, "f"), 64 * self->bsize);
	__u64 before = expect_charged(_metadata, self, fd, base);

	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       16 * self->bsize, 16 * self->bsize))
		TH_LOG("punch hole: %s", strerror(errno));
	EXPECT_EQ(before - 16 * self->bsize,
		  expect_charged(_metadata, self, fd, base));
	close(fd);
}

TEST_F(prjquota, unlink_returns_usage_to_value_before_file)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	char f[PATH_MAX];
	int fd = data_file(_metadata, ppath(self, f, "f"), 64 * self->bsize);

	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, 64 * self->bsize,
			       32 * self->bsize));
	expect_charged(_metadata, self, fd, base);
	close(fd);
	ASSERT_EQ(0, unlink(f));
	u = wait_usage(_metadata, self, self->prj, base);
	EXPECT_EQ(base.space, u.space);
	EXPECT_EQ(base.inodes, u.inodes);
}

TEST_F(prjquota, rename_within_project_keeps_usage)
{
	char f[PATH_MAX], g[PATH_MAX], sub[PATH_MAX], h[PATH_MAX];
	struct usage before, u;

	ASSERT_EQ(0, mkdir(ppath(self, sub, "sub"), 0755));
	close(data_file(_metadata, ppath(self, f, "f"), 16 * self->bsize));
	before = read_usage(_metadata, self, self->prj);
	ASSERT_EQ(0, rename(f, ppath(self, g, "g")));
	ASSERT_EQ(0, rename(g, ppath(self, h, "sub/h")));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(before.space, u.space);
	EXPECT_EQ(before.inodes, u.inodes);
	expect_projid(_metadata, h, self->prj);
}

TEST_F(prjquota, link_within_project_keeps_usage)
{
	char f[PATH_MAX], l[PATH_MAX];
	struct usage before, u;

	close(data_file(_metadata, ppath(self, f, "f"), 16 * self->bsize));
	before = read_usage(_metadata, self, self->prj);
	ASSERT_EQ(0, link(f, ppath(self, l, "l")));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(before.space, u.space);
	EXPECT_EQ(before.inodes, u.inodes);
	ASSERT_EQ(0, unlink(f));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(before.space, u.space);
	EXPECT_EQ(before.inodes, u.inodes);
}

TEST_F(prjquota, tmpfile_is_charged_to_project)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	int fd = open(self->pdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	int ret;

	ASSERT_LE(0, fd) TH_LOG("O_TMPFILE in %s: %s", self->pdir,
				strerror(errno));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(base.inodes + 1, u.inodes);
	ret = write_bytes(fd, 0, 16 * self->bsize, 't');
	ASSERT_EQ(0, ret) TH_LOG("write: %s", strerror(ret));
	ASSERT_EQ(0, fsync(fd));
	EXPECT_LE(16 * self->bsize, expect_charged(_metadata, self, fd, base));
	/* Closing the last reference frees it. */
	close(fd);
	u = wait_usage(_metadata, self, self->prj, base);
	EXPECT_EQ(base.space, u.space);
	EXPECT_EQ(base.inodes, u.inodes);
}

TEST_F(prjquota, linkat_of_tmpfile_keeps_charge)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	int fd = open(self->pdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	char proc[64], t[PATH_MAX];
	__u64 bytes;
	int ret;

	ASSERT_LE(0, fd) TH_LOG("O_TMPFILE in %s: %s", self->pdir,
				strerror(errno));
	ret = write_bytes(fd, 0, 16 * self->bsize, 't');
	ASSERT_EQ(0, ret) TH_LOG("write: %s", strerror(ret));
	ASSERT_EQ(0, fsync(fd));
	bytes = expect_charged(_metadata, self, fd, base);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ASSERT_EQ(0, linkat(AT_FDCWD, proc, AT_FDCWD, ppath(self, t, "t"),
			    AT_SYMLINK_FOLLOW))
		TH_LOG("linkat %s: %s", proc, strerror(errno));
	EXPECT_EQ(bytes, expect_charged(_metadata, self, fd, base));
	close(fd);
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(base.space + bytes, u.space);
	EXPECT_EQ(base.inodes + 1, u.inodes);
	expect_projid(_metadata, t, self->prj);
}

TEST_F(prjquota, projid_change_moves_usage_to_new_project)
{
	__u32 to = self->prj + 1;
	struct usage base, base_to, u;
	char f[PATH_MAX];
	__u64 bytes;
	int fd;

	make_project_dir(_metadata, self, "q", to);
	base = read_usage(_metadata, self, self->prj);
	base_to = read_usage(_metadata, self, to);
	fd = data_file(_metadata, ppath(self, f, "f"), 32 * self->bsize);
	bytes = expect_charged(_metadata, self, fd, base);

	ASSERT_EQ(0, set_project(fd, to, false));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(base.space, u.space);
	EXPECT_EQ(base.inodes, u.inodes);
	u = read_usage(_metadata, self, to);
	EXPECT_EQ(base_to.space + bytes, u.space);
	EXPECT_EQ(base_to.inodes + 1, u.inodes);
	EXPECT_EQ(bytes, file_bytes(_metadata, fd));
	close(fd);
}

struct setproj_args {
	int fd;
	__u32 projid;
};

/* errno of FS_IOC_FSSETXATTR, 0 if it worked */
static int setproj_child(void *p)
{
	struct setproj_args *args = p;

	return -set_project(args->fd, args->projid, false);
}

/*
 * Move a file of 32 blocks into project prj + 1 (a directory "q" beside
 * p), whose block hard limit is one block above its usage; returns the wait status of the child
 * that tries it, without CAP_SYS_RESOURCE if @drop.
 */
static int move_into_full_project(struct __test_metadata *_metadata,
				  FIXTURE_DATA(prjquota) *self, bool drop,
				  struct usage *from, struct usage *to,
				  char *f)
{
	struct setproj_args args = { .projid = self->prj + 1 };
	struct usage base;
	int status;

	make_project_dir(_metadata, self, "q", args.projid);
	base = read_usage(_metadata, self, self->prj);
	*to = read_usage(_metadata, self, args.projid);
	limit(_metadata, self, args.projid, 0,
	      kib_above(_metadata, self, *to, self->bsize), 0, 0);
	args.fd = data_file(_metadata, ppath(self, f, "f"), 32 * self->bsize);
	expect_charged(_metadata, self, args.fd, base);
	*from = read_usage(_metadata, self, self->prj);
	status = run_child(setproj_child, &args, drop);
	close(args.fd);
	return status;
}

/*
 * dquot_transfer() refuses a project change that would take the new
 * project over its hard limit, unless the caller has CAP_SYS_RESOURCE.
 * Here ext4 and XFS differ: XFS lets CAP_FOWNER, not CAP_SYS_RESOURCE,
 * force the change (xfs_ioctl_setattr_get_trans() passes it as "force"
 * to xfs_trans_alloc_ichange()), so root without CAP_SYS_RESOURCE still
 * succeeds there; and without CAP_FOWNER it fails with ENOSPC, which is
 * what XFS says for every project quota limit (xfs_trans_dqresv()).
 * tmpfs follows ext4: its quota is the VFS quota core's.
 */
TEST_F(prjquota, projid_change_into_full_project_without_cap_sys_resource_gives_edquot)
{
	struct usage from, to, u;
	char f[PATH_MAX];
	int status;

	status = move_into_full_project(_metadata, self, true, &from, &to, f);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("wait status %#x", status);
	ASSERT_NE(CHILD_NOCAP, WEXITSTATUS(status))
		TH_LOG("cannot drop CAP_SYS_RESOURCE");
	EXPECT_EQ(EDQUOT, WEXITSTATUS(status))
		TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(WEXITSTATUS(status)));
	if (WEXITSTATUS(status) == 0)
		return;
	expect_projid(_metadata, f, self->prj);
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(from.space, u.space);
	EXPECT_EQ(from.inodes, u.inodes);
	u = read_usage(_metadata, self, self->prj + 1);
	EXPECT_EQ(to.space, u.space);
	EXPECT_EQ(to.inodes, u.inodes);
}

TEST_F(prjquota, projid_change_into_full_project_with_cap_sys_resource_succeeds)
{
	struct usage from, to, u;
	__u64 moved;
	char f[PATH_MAX];
	int status;

	status = move_into_full_project(_metadata, self, false, &from, &to, f);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("wait status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(WEXITSTATUS(status)));
	expect_projid(_metadata, f, self->prj + 1);
	u = read_usage(_metadata, self, self->prj);
	moved = from.space - u.space;
	EXPECT_EQ(from.inodes - 1, u.inodes);
	EXPECT_LE(32 * self->bsize, moved);
	u = read_usage(_metadata, self, self->prj + 1);
	EXPECT_EQ(to.space + moved, u.space);
	EXPECT_EQ(to.inodes + 1, u.inodes);
}

struct write_args {
	const char *path;
	size_t len;		/* write this much from offset 0, fsync */
	size_t more;		/* then this much more */
	int write_err, fsync_err, more_err;	/* errno, 0 if it worked */
};

static int write_child(void *p)
{
	struct write_args *args = p;
	int fd = open(args->path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return 1;
	args->write_err = write_bytes(fd, 0, args->len, 'w');
	args->fsync_err = fsync(fd) ? errno : 0;
	args->more_err = args->more ?
		write_bytes(fd, args->len, args->more, 'm') : 0;
	close(fd);
	return 0;
}

/* Run write_child() for @path, with the arguments in shared memory. */
static struct write_args *write_in_child(struct __test_metadata *_metadata,
					 const char *path, size_t len,
					 size_t more, bool drop)
{
	struct write_args *args = shared_alloc(sizeof(*args));
	int status;

	ASSERT_NE(NULL, args);
	*args = (struct write_args){ .path = path, .len = len, .more = more,
				     .write_err = -1, .fsync_err = -1,
				     .more_err = -1 };
	status = run_child(write_child, args, drop);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("wait status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("child: %s",
		WEXITSTATUS(status) == CHILD_NOCAP ?
		"cannot drop CAP_SYS_RESOURCE" : "cannot create the file");
	return args;
}

/*
 * The limit is inclusive: usage may reach it, not pass it. ext4 and XFS
 * differ in the error: XFS says ENOSPC for a project quota limit
 * (xfs_trans_dqresv(): the project is a directory tree that is full),
 * ext4 EDQUOT. tmpfs follows ext4 (the VFS quota core).
 */
TEST_F(prjquota, write_up_to_block_hard_limit_succeeds_and_beyond_gives_edquot)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	size_t n = round_blocks(self, 256 * 1024);
	__u64 hard = kib_above(_metadata, self, base, n);
	struct write_args *res;
	char f[PATH_MAX];

	limit(_metadata, self, self->prj, 0, hard, 0, 0);
	res = write_in_child(_metadata, ppath(self, f, "f"), n, 1, true);
	EXPECT_EQ(0, res->write_err) TH_LOG("write up to the limit: %s",
					    strerror(res->write_err));
	EXPECT_EQ(0, res->fsync_err) TH_LOG("fsync: %s",
					    strerror(res->fsync_err));
	EXPECT_EQ(EDQUOT, res->more_err) TH_LOG("one byte more: %s",
						strerror(res->more_err));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_LE(u.space, hard * 1024);
	EXPECT_EQ(base.space + n, u.space);
	munmap(res, sizeof(*res));
}

/*
 * ignore_hardlimit() in fs/quota/dquot.c: a caller with CAP_SYS_RESOURCE
 * is not stopped by hard limits. Here ext4 and XFS differ: XFS has no
 * such exception (xfs_trans_dqresv() checks no capability), so root gets
 * ENOSPC there. tmpfs follows ext4 (the VFS quota core).
 */
TEST_F(prjquota, cap_sys_resource_ignores_block_hard_limit)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	size_t n = round_blocks(self, 256 * 1024);
	__u64 hard = kib_above(_metadata, self, base, n);
	struct write_args *res;
	char f[PATH_MAX];

	limit(_metadata, self, self->prj, 0, hard, 0, 0);
	res = write_in_child(_metadata, ppath(self, f, "f"), n, 16 * self->bsize,
			     false);
	EXPECT_EQ(0, res->write_err) TH_LOG("write up to the limit: %s",
					    strerror(res->write_err));
	EXPECT_EQ(0, res->more_err) TH_LOG("write beyond: %s",
					   strerror(res->more_err));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_LT(hard * 1024, u.space);
	munmap(res, sizeof(*res));
}

#define INODES_ALLOWED	8

struct create_result {
	int created;				/* files created */
	int create_err;				/* errno of the first failure */
	int open_err, mkdir_err, mknod_err, symlink_err;
};

struct create_args {
	const char *pdir;
	struct create_result *res;
};

static int create_child(void *p)
{
	struct create_args *args = p;
	struct create_result *res = args->res;
	char path[PATH_MAX];
	int fd, i;

	for (i = 0; i < INODES_ALLOWED; i++) {
		if (snprintf(path, sizeof(path), "%s/f%d", args->pdir, i) >=
		    (int)sizeof(path)) {
			res->create_err = ENAMETOOLONG;
			return 0;
		}
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0) {
			res->create_err = errno;
			return 0;
		}
		close(fd);
		res->created++;
	}
	fd = open(join(path, args->pdir, "x"), O_CREAT | O_EXCL | O_WRONLY |
		  O_CLOEXEC, 0644);
	res->open_err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	res->mkdir_err = mkdir(join(path, args->pdir, "xd"), 0755) ? errno : 0;
	res->mknod_err = mknod(join(path, args->pdir, "xf"), S_IFIFO | 0644, 0) ?
			 errno : 0;
	res->symlink_err = symlink("t", join(path, args->pdir, "xs")) ? errno : 0;
	return 0;
}

/*
 * As for blocks, the inode limit is inclusive, and XFS says ENOSPC where
 * ext4 says EDQUOT; tmpfs follows ext4.
 */
TEST_F(prjquota, create_up_to_inode_hard_limit_succeeds_and_beyond_gives_edquot)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	struct create_args args = { .pdir = self->pdir };
	struct create_result *res = shared_alloc(sizeof(*res));
	int status;

	ASSERT_NE(NULL, res);
	memset(res, 0, sizeof(*res));
	args.res = res;
	limit(_metadata, self, self->prj, 0, 0, 0, base.inodes + INODES_ALLOWED);
	status = run_child(create_child, &args, true);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("wait status %#x", status);
	ASSERT_NE(CHILD_NOCAP, WEXITSTATUS(status))
		TH_LOG("cannot drop CAP_SYS_RESOURCE");
	EXPECT_EQ(INODES_ALLOWED, res->created)
		TH_LOG("create failed: %s", strerror(res->create_err));
	EXPECT_EQ(EDQUOT, res->open_err) TH_LOG("open(O_CREAT): %s",
						strerror(res->open_err));
	EXPECT_EQ(EDQUOT, res->mkdir_err) TH_LOG("mkdir: %s",
						 strerror(res->mkdir_err));
	EXPECT_EQ(EDQUOT, res->mknod_err) TH_LOG("mknod: %s",
						 strerror(res->mknod_err));
	EXPECT_EQ(EDQUOT, res->symlink_err) TH_LOG("symlink: %s",
						   strerror(res->symlink_err));
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(base.inodes + INODES_ALLOWED, u.inodes);
	munmap(res, sizeof(*res));
}

struct mmap_args {
	int fd;
	size_t len;
	long page;
	unsigned long *stored;	/* pages stored into, shared */
};

static int mmap_child(void *p)
{
	struct mmap_args *args = p;
	char *map = mmap(NULL, args->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 args->fd, 0);
	size_t off;

	if (map == MAP_FAILED)
		return 1;
	for (off = 0; off < args->len; off += args->page) {
		map[off] = 's';
		(*args->stored)++;
	}
	return 0;	/* no SIGBUS */
}

TEST_F(prjquota, mmap_store_beyond_block_hard_limit_gets_sigbus)
{
	struct usage base = read_usage(_metadata, self, self->prj), u;
	long page = sysconf(_SC_PAGESIZE);
	size_t n = round_blocks(self, 64 * page);
	__u64 hard = kib_above(_metadata, self, base, n);
	struct mmap_args args = { .len = 2 * n, .page = page };
	char f[PATH_MAX];
	int status;

	args.stored = shared_alloc(sizeof(*args.stored));
	ASSERT_NE(NULL, args.stored);
	*args.stored = 0;
	args.fd = create_file(_metadata, ppath(self, f, "f"));
	ASSERT_EQ(0, ftruncate(args.fd, args.len));
	limit(_metadata, self, self->prj, 0, hard, 0, 0);
	status = run_child(mmap_child, &args, true);
	ASSERT_NE(-1, status);
	ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_NOCAP)
		TH_LOG("cannot drop CAP_SYS_RESOURCE");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)
		TH_LOG("wait status %#x after storing into %lu of %zu pages",
		       status, *args.stored, (size_t)(args.len / page));
	EXPECT_GE(n / page, *args.stored);
	u = read_usage(_metadata, self, self->prj);
	EXPECT_LE(u.space, hard * 1024);
	close(args.fd);
	munmap(args.stored, sizeof(*args.stored));
}

/*
 * Reading a sparse file through a mapping allocates nothing on ext4 and
 * XFS: the page cache takes zeros for the holes, no block is allocated, so
 * nothing is charged and st_blocks stays 0. Here tmpfs differs from both
 * (tests/known-differences): its data is its pages, a read fault on a hole
 * puts a page into the file (shmem_fault()) and charges it, which
 * tmpfs.rst documents and tmpfs-prjquota-options.c pins.
 */
TEST_F(prjquota, read_fault_on_hole_charges_nothing)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t off, len = round_blocks(self, 64 * page);
	struct usage base, u;
	volatile const char *map;
	char f[PATH_MAX], sum = 0;
	int fd;

	fd = create_file(_metadata, ppath(self, f, "sparse"));
	ASSERT_EQ(0, ftruncate(fd, len));
	ASSERT_EQ(0, fsync(fd));
	base = read_usage(_metadata, self, self->prj);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, (void *)map) TH_LOG("mmap: %s", strerror(errno));
	for (off = 0; off < len; off += page)
		sum += map[off];
	munmap((void *)map, len);
	EXPECT_EQ(0, sum);
	u = read_usage(_metadata, self, self->prj);
	EXPECT_EQ(base.space, u.space)
		TH_LOG("curspace %llu after reading %zu bytes of holes, %llu before",
		       (unsigned long long)u.space, len,
		       (unsigned long long)base.space);
	EXPECT_EQ(base.inodes, u.inodes);
	EXPECT_EQ(0ull, file_bytes(_metadata, fd));
	close(fd);
}

/*
 * Above the soft limit (and below the hard one) writing goes on, and the
 * grace period starts: dqb_btime is the time it ends.
 */
TEST_F(prjquota, usage_above_soft_limit_is_allowed_and_starts_grace_time)
{
	struct usage base = read_usage(_metadata, self, self->prj);
	__u64 soft = kib_above(_metadata, self, base, 16 * self->bsize);
	__u64 hard = kib_above(_metadata, self, base, 256 * self->bsize);
	struct write_args *res;
	struct if_dqblk dq;
	char f[PATH_MAX];

	limit(_metadata, self, self->prj, soft, hard, 0, 0);
	get_dqblk(_metadata, self, self->prj, &dq);
	EXPECT_EQ(0ull, dq.dqb_btime);
	res = write_in_child(_metadata, ppath(self, f, "f"), 32 * self->bsize, 0,
			     true);
	EXPECT_EQ(0, res->write_err) TH_LOG("write: %s",
					    strerror(res->write_err));
	EXPECT_EQ(0, res->fsync_err) TH_LOG("fsync: %s",
					    strerror(res->fsync_err));
	get_dqblk(_metadata, self, self->prj, &dq);
	EXPECT_LT(soft * 1024, dq.dqb_curspace);
	EXPECT_GE(hard * 1024, dq.dqb_curspace);
	EXPECT_NE(0ull, dq.dqb_btime);
	munmap(res, sizeof(*res));
}

/* Grace times in seconds, unlike any default */
#define BGRACE	(3ull * 86400 + 7)
#define IGRACE	(2ull * 86400 + 11)

TEST_F(prjquota, grace_time_set_with_setinfo_round_trips)
{
	struct if_dqinfo info;
	int ret;

	ret = prj_quotactl(self->mnt_fd, Q_GETINFO, 0, &self->saved_info);
	ASSERT_EQ(0, ret) TH_LOG("Q_GETINFO: %s", strerror(-ret));
	self->saved_info.dqi_valid = IIF_BGRACE | IIF_IGRACE;
	self->restore_info = true;

	memset(&info, 0, sizeof(info));
	info.dqi_bgrace = BGRACE;
	info.dqi_igrace = IGRACE;
	info.dqi_valid = IIF_BGRACE | IIF_IGRACE;
	ret = prj_quotactl(self->mnt_fd, Q_SETINFO, 0, &info);
	ASSERT_EQ(0, ret) TH_LOG("Q_SETINFO: %s", strerror(-ret));
	memset(&info, 0, sizeof(info));
	ret = prj_quotactl(self->mnt_fd, Q_GETINFO, 0, &info);
	ASSERT_EQ(0, ret) TH_LOG("Q_GETINFO: %s", strerror(-ret));
	EXPECT_EQ(BGRACE, info.dqi_bgrace);
	EXPECT_EQ(IGRACE, info.dqi_igrace);
}

static void get_statfs(struct __test_metadata *_metadata, const char *path,
		       struct statfs *sfs)
{
	ASSERT_EQ(0, statfs(path, sfs)) TH_LOG("statfs %s: %s", path,
					       strerror(errno));
}

/*
 * statfs of @path shows project @id's limits: @blimit bytes of space
 * (0: no block limit expected), @ilimit inodes (0: none), the free
 * amounts what the usage leaves of them (the filesystem may round the
 * usage to f_bsize either way), and never more than the filesystem has.
 */
static void expect_statfs_limits(struct __test_metadata *_metadata,
				 FIXTURE_DATA(prjquota) *self,
				 const char *path, __u32 id, __u64 blimit,
				 __u64 ilimit)
{
	struct usage u = read_usage(_metadata, self, id);
	struct statfs fs, sfs;
	__u64 lo, hi, used_lo, used_hi;

	get_statfs(_metadata, test_dir, &fs);
	get_statfs(_metadata, path, &sfs);
	EXPECT_GE(fs.f_blocks, sfs.f_blocks);
	EXPECT_GE(fs.f_files, sfs.f_files);
	if (blimit) {
		EXPECT_EQ(blimit, (__u64)sfs.f_blocks * sfs.f_bsize)
			TH_LOG("%s: f_blocks %llu of %lu bytes", path,
			       (unsigned long long)sfs.f_blocks,
			       (unsigned long)sfs.f_bsize);
		used_lo = u.space / sfs.f_bsize;
		used_hi = (u.space + sfs.f_bsize - 1) / sfs.f_bsize;
		lo = sfs.f_blocks > used_hi ? sfs.f_blocks - used_hi : 0;
		hi = sfs.f_blocks > used_lo ? sfs.f_blocks - used_lo : 0;
		EXPECT_TRUE(sfs.f_bfree >= lo && sfs.f_bfree <= hi)
			TH_LOG("%s: f_bfree %llu, limit %llu blocks, usage %llu bytes",
			       path, (unsigned long long)sfs.f_bfree,
			       (unsigned long long)sfs.f_blocks,
			       (unsigned long long)u.space);
		EXPECT_EQ(sfs.f_bfree, sfs.f_bavail);
	}
	if (ilimit) {
		EXPECT_EQ(ilimit, sfs.f_files) TH_LOG("%s: f_files", path);
		EXPECT_EQ(ilimit - u.inodes, sfs.f_ffree)
			TH_LOG("%s: f_ffree, %llu inodes used", path,
			       (unsigned long long)u.inodes);
	}
}

TEST_F(prjquota, statfs_reports_block_hard_limit)
{
	struct usage u;
	char f[PATH_MAX];
	__u64 hard;

	close(data_file(_metadata, ppath(self, f, "f"), 16 * self->bsize));
	u = read_usage(_metadata, self, self->prj);
	hard = kib_above(_metadata, self, u, 256 * self->bsize);
	limit(_metadata, self, self->prj, 0, hard, 0, 0);
	expect_statfs_limits(_metadata, self, self->pdir, self->prj,
			     hard * 1024, 0);
}

/* The soft limit is what statfs shows when both are set (ext4 and XFS). */
TEST_F(prjquota, statfs_reports_soft_limit_when_soft_and_hard_are_set)
{
	struct usage u;
	char f[PATH_MAX];
	__u64 soft, hard;

	close(data_file(_metadata, ppath(self, f, "f"), 16 * self->bsize));
	u = read_usage(_metadata, self, self->prj);
	soft = kib_above(_metadata, self, u, 128 * self->bsize);
	hard = kib_above(_metadata, self, u, 256 * self->bsize);
	limit(_metadata, self, self->prj, soft, hard, u.inodes + 50,
	      u.inodes + 100);
	expect_statfs_limits(_metadata, self, self->pdir, self->prj,
			     soft * 1024, u.inodes + 50);
}

TEST_F(prjquota, statfs_reports_inode_hard_limit)
{
	struct usage u;
	char f[PATH_MAX];

	close(create_file(_metadata, ppath(self, f, "f")));
	u = read_usage(_metadata, self, self->prj);
	limit(_metadata, self, self->prj, 0, 0, 0, u.inodes + 100);
	expect_statfs_limits(_metadata, self, self->pdir, self->prj, 0,
			     u.inodes + 100);
}

TEST_F(prjquota, statfs_in_nested_projinherit_dir_reports_same_limits)
{
	char sub[PATH_MAX], f[PATH_MAX];
	struct statfs top, nested;
	struct usage u;
	__u64 hard;

	ASSERT_EQ(0, mkdir(ppath(self, sub, "sub"), 0755));
	ASSERT_EQ(0, mkdir(ppath(self, sub, "sub/sub"), 0755));
	close(data_file(_metadata, ppath(self, f, "sub/sub/f"),
			16 * self->bsize));
	u = read_usage(_metadata, self, self->prj);
	hard = kib_above(_metadata, self, u, 256 * self->bsize);
	limit(_metadata, self, self->prj, 0, hard, 0, u.inodes + 100);
	expect_statfs_limits(_metadata, self, sub, self->prj, hard * 1024,
			     u.inodes + 100);
	get_statfs(_metadata, self->pdir, &top);
	get_statfs(_metadata, sub, &nested);
	EXPECT_EQ(top.f_blocks, nested.f_blocks);
	EXPECT_EQ(top.f_bfree, nested.f_bfree);
	EXPECT_EQ(top.f_bavail, nested.f_bavail);
	EXPECT_EQ(top.f_files, nested.f_files);
	EXPECT_EQ(top.f_ffree, nested.f_ffree);
}

/* Only PROJINHERIT makes statfs report the project, not the ID alone. */
TEST_F(prjquota, statfs_in_dir_without_projinherit_reports_filesystem)
{
	char d[PATH_MAX];
	struct statfs fs, sfs;
	struct usage u;
	int ret;

	join(d, self->dir, "plain");
	ASSERT_EQ(0, mkdir(d, 0755));
	ret = set_project_path(d, self->prj, false);
	ASSERT_EQ(0, ret) TH_LOG("project of %s: %s", d, strerror(-ret));
	u = read_usage(_metadata, self, self->prj);
	limit(_metadata, self, self->prj, 0,
	      kib_above(_metadata, self, u, 16 * self->bsize), 0, u.inodes + 10);
	get_statfs(_metadata, test_dir, &fs);
	get_statfs(_metadata, d, &sfs);
	EXPECT_EQ(fs.f_blocks, sfs.f_blocks);
	EXPECT_EQ(fs.f_files, sfs.f_files);
	get_statfs(_metadata, self->dir, &sfs);
	EXPECT_EQ(fs.f_blocks, sfs.f_blocks);
	EXPECT_EQ(fs.f_files, sfs.f_files);
}

/* A limit above the filesystem's size shows the filesystem's size. */
TEST_F(prjquota, statfs_never_reports_more_than_filesystem)
{
	struct statfs fs, sfs;
	struct usage u = read_usage(_metadata, self, self->prj);

	get_statfs(_metadata, test_dir, &fs);
	limit(_metadata, self, self->prj, 0,
	      kib_above(_metadata, self, u, 4 * (__u64)fs.f_blocks * fs.f_bsize),
	      0, u.inodes + 4 * (__u64)fs.f_files);
	get_statfs(_metadata, test_dir, &fs);
	get_statfs(_metadata, self->pdir, &sfs);
	EXPECT_EQ(fs.f_blocks, sfs.f_blocks);
	EXPECT_EQ(fs.f_files, sfs.f_files);
	EXPECT_GE(fs.f_bfree, sfs.f_bfree);
	EXPECT_GE(fs.f_ffree, sfs.f_ffree);
}

GUEST_TEST_MAIN(test_dir, "PROJQUOTA_DIR")
