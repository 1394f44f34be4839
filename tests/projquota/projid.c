// SPDX-License-Identifier: GPL-2.0
/*
 * Project IDs and the PROJINHERIT directory flag, as set and read with
 * FS_IOC_FSSETXATTR/FS_IOC_FSGETXATTR and FS_IOC_SETFLAGS/FS_IOC_GETFLAGS,
 * and the EXDEV rules of link() and rename() into PROJINHERIT directories.
 *
 *   projid [DIR] [kselftest harness options]
 *
 * tests the filesystem of DIR, else of $PROJQUOTA_DIR, else of /tmp (tmpfs
 * in the guest). Every test works in a fresh mkdtemp() directory below it
 * and removes it afterwards. The same tests are meant to be run on tmpfs,
 * on ext4 (mkfs -O project, mounted with or without prjquota) and on XFS,
 * fstests-style: a test never asks which filesystem it runs on. Where the
 * filesystems are known to differ, the comment at the test says so; there
 * the test asserts what tmpfs is meant to do.
 *
 * Needs root (CAP_SYS_ADMIN, CAP_MKNOD, ...): without it, every test skips.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/fs.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "projquota.h"

/* Below 65536, so that XFS without projid32bit takes them too. */
#define PRJ_A		4701u
#define PRJ_B		4702u
/* A uid and gid that own nothing but what a test chowns to them. */
#define OTHER_ID	4711

static const char *test_dir = "/tmp";

/* Project ID and PROJINHERIT of the inode open at @fd; 0 or -errno. */
static int fd_get_project(int fd, __u32 *projid, bool *inherit)
{
	struct fsxattr fsx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		return -errno;
	*projid = fsx.fsx_projid;
	*inherit = fsx.fsx_xflags & FS_XFLAG_PROJINHERIT;
	return 0;
}

static int get_project(const char *path, __u32 *projid, bool *inherit)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = fd_get_project(fd, projid, inherit);
	close(fd);
	return ret;
}

static int get_flags(const char *path, unsigned int *flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, flags))
		ret = -errno;
	close(fd);
	return ret;
}

static int set_flags(const char *path, unsigned int flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		ret = -errno;
	close(fd);
	return ret;
}

static bool has_flag(unsigned int flags, unsigned int flag)
{
	return flags & flag;
}

FIXTURE(projid) {
	char dir[PATH_MAX];
};

FIXTURE_SETUP(projid)
{
	int ret;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	join(self->dir, test_dir, "projid.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir))
		TH_LOG("mkdtemp in %s: %s", test_dir, strerror(errno));
	/* Whatever the tested directory has, start from project 0. */
	ret = set_project_path(self->dir, 0, false);
	if (ret)
		rmdir(self->dir);	/* no teardown after a failed setup */
	ASSERT_EQ(0, ret) TH_LOG("project 0 on %s: %s", self->dir,
				 strerror(-ret));
}

FIXTURE_TEARDOWN(projid)
{
	if (self->dir[0] && rm_tree(self->dir))
		TH_LOG("cannot remove %s: %s", self->dir, strerror(errno));
}

/* @buf = the fixture's directory / @name */
static char *path_of(FIXTURE_DATA(projid) *self, char *buf, const char *name)
{
	return join(buf, self->dir, name);
}

/* Make directory @name with project @projid, PROJINHERIT if @inherit. */
static void make_dir(struct __test_metadata *_metadata,
		     FIXTURE_DATA(projid) *self, char *buf, const char *name,
		     __u32 projid, bool inherit)
{
	int ret;

	path_of(self, buf, name);
	ASSERT_EQ(0, mkdir(buf, 0755)) TH_LOG("mkdir %s: %s", buf, strerror(errno));
	ret = set_project_path(buf, projid, inherit);
	ASSERT_EQ(0, ret) TH_LOG("project %u%s on %s: %s", projid,
				 inherit ? " +P" : "", buf, strerror(-ret));
}

static void make_file(struct __test_metadata *_metadata, const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	ASSERT_LE(0, fd) TH_LOG("create %s: %s", path, strerror(errno));
	close(fd);
}

static void expect_project(struct __test_metadata *_metadata,
			   const char *path, __u32 projid, bool inherit)
{
	__u32 got_projid = ~0u;
	bool got_inherit = !inherit;
	int ret = get_project(path, &got_projid, &got_inherit);

	ASSERT_EQ(0, ret) TH_LOG("FS_IOC_FSGETXATTR on %s: %s", path,
				 strerror(-ret));
	EXPECT_EQ(projid, got_projid) TH_LOG("project ID of %s", path);
	EXPECT_EQ(inherit, got_inherit) TH_LOG("PROJINHERIT of %s", path);
}

TEST_F(projid, fsgetxattr_reports_projid)
{
	char f[PATH_MAX], d[PATH_MAX];

	make_file(_metadata, path_of(self, f, "f"));
	make_dir(_metadata, self, d, "d", 0, false);
	expect_project(_metadata, f, 0, false);

	ASSERT_EQ(0, set_project_path(f, PRJ_A, false));
	expect_project(_metadata, f, PRJ_A, false);
	ASSERT_EQ(0, set_project_path(d, PRJ_B, false));
	expect_project(_metadata, d, PRJ_B, false);
	ASSERT_EQ(0, set_project_path(f, 0, false));
	expect_project(_metadata, f, 0, false);
}

/* FS_IOC_SETFLAGS (plain chattr) must not reset the project ID. */
TEST_F(projid, setflags_keeps_projid)
{
	char f[PATH_MAX];
	unsigned int flags;

	make_file(_metadata, path_of(self, f, "f"));
	ASSERT_EQ(0, set_project_path(f, PRJ_A, false));
	ASSERT_EQ(0, get_flags(f, &flags));
	ASSERT_EQ(0, set_flags(f, flags | FS_NODUMP_FL));
	ASSERT_EQ(0, get_flags(f, &flags));
	EXPECT_TRUE(has_flag(flags, FS_NODUMP_FL));
	expect_project(_metadata, f, PRJ_A, false);
}

TEST_F(projid, new_file_in_projinherit_dir_inherits_projid)
{
	char d[PATH_MAX], f[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	make_file(_metadata, path_of(self, f, "d/f"));
	/* A file never shows PROJINHERIT, also on ext4 and XFS. */
	expect_project(_metadata, f, PRJ_A, false);
}

TEST_F(projid, new_dir_inherits_projinherit_flag)
{
	char d[PATH_MAX], sub[PATH_MAX], f[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	ASSERT_EQ(0, mkdir(path_of(self, sub, "d/sub"), 0755));
	expect_project(_metadata, sub, PRJ_A, true);
	/* ... and passes it on: the grandchild is in the project too. */
	make_file(_metadata, path_of(self, f, "d/sub/f"));
	expect_project(_metadata, f, PRJ_A, false);
}

/* Without PROJINHERIT, the parent's project ID is not inherited. */
TEST_F(projid, file_without_projinherit_parent_gets_projid_0)
{
	char d[PATH_MAX], f[PATH_MAX], sub[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, false);
	make_file(_metadata, path_of(self, f, "d/f"));
	expect_project(_metadata, f, 0, false);
	ASSERT_EQ(0, mkdir(path_of(self, sub, "d/sub"), 0755));
	expect_project(_metadata, sub, 0, false);
}

/*
 * Inodes that cannot be opened for FS_IOC_FSGETXATTR (symlinks) or whose
 * filesystem has no fileattr methods for them (ext4 and tmpfs have none
 * for special files; XFS has) show their project ID through the EXDEV
 * rule instead: an inode of project A renames into a PROJINHERIT
 * directory of project A, and not into one of project B.
 */
static void expect_project_by_rename(struct __test_metadata *_metadata,
				     FIXTURE_DATA(projid) *self,
				     const char *name)
{
	char dir[PATH_MAX], src[PATH_MAX], same[PATH_MAX], other[PATH_MAX];
	char dst[PATH_MAX], dst_other[PATH_MAX];

	make_dir(_metadata, self, same, "same", PRJ_A, true);
	make_dir(_metadata, self, other, "other", PRJ_B, true);
	join(src, path_of(self, dir, "d"), name);
	join(dst, same, name);
	join(dst_other, other, name);

	EXPECT_EQ(-1, rename(src, dst_other));
	EXPECT_EQ(EXDEV, errno) TH_LOG("rename %s into project %u: %s",
				       name, PRJ_B, strerror(errno));
	EXPECT_EQ(0, rename(src, dst)) TH_LOG("rename %s into project %u: %s",
					      name, PRJ_A, strerror(errno));
}

TEST_F(projid, symlink_in_projinherit_dir_inherits_projid)
{
	char d[PATH_MAX], p[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	ASSERT_EQ(0, symlink("target", path_of(self, p, "d/link")));
	expect_project_by_rename(_metadata, self, "link");
}

TEST_F(projid, fifo_in_projinherit_dir_inherits_projid)
{
	char d[PATH_MAX], p[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	ASSERT_EQ(0, mknod(path_of(self, p, "d/fifo"), S_IFIFO | 0600, 0));
	expect_project_by_rename(_metadata, self, "fifo");
}

TEST_F(projid, socket_in_projinherit_dir_inherits_projid)
{
	char d[PATH_MAX], p[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	/* mknod() makes the same inode as bind(), with no path length limit */
	ASSERT_EQ(0, mknod(path_of(self, p, "d/sock"), S_IFSOCK | 0600, 0));
	expect_project_by_rename(_metadata, self, "sock");
}

TEST_F(projid, device_node_in_projinherit_dir_inherits_projid)
{
	char d[PATH_MAX], p[PATH_MAX];

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	ASSERT_EQ(0, mknod(path_of(self, p, "d/null"), S_IFCHR | 0600,
			   makedev(1, 3)));
	expect_project_by_rename(_metadata, self, "null");
}

TEST_F(projid, tmpfile_in_projinherit_dir_inherits_projid)
{
	char d[PATH_MAX];
	__u32 projid = 0;
	bool inherit = true;
	int fd;

	make_dir(_metadata, self, d, "d", PRJ_A, true);
	fd = open(d, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd) TH_LOG("O_TMPFILE in %s: %s", d, strerror(errno));
	ASSERT_EQ(0, fd_get_project(fd, &projid, &inherit));
	EXPECT_EQ(PRJ_A, projid);
	EXPECT_FALSE(inherit);
	close(fd);
}

/*
 * PROJINHERIT means nothing on a regular file, and here ext4 and XFS
 * differ: ext4 refuses it with EOPNOTSUPP (ext4_fileattr_set() checks
 * ext4_mask_flags()), XFS accepts the request and drops the flag
 * (xfs_flags2diflags()), which xfs_quota's "project -s" relies on when it
 * sets the flag on every file of a tree. tmpfs follows XFS, so that the
 * same tools work on it. What holds on all of them: the flag never sticks
 * to a regular file, and a refusal is exactly EOPNOTSUPP and changes
 * nothing. The log line says which of the two behaviours was seen.
 */
TEST_F(projid, projinherit_never_sticks_to_a_regular_file)
{
	char f[PATH_MAX];
	unsigned int flags = 0;
	int ret;

	make_file(_metadata, path_of(self, f, "f"));
	ret = set_project_path(f, PRJ_A, true);
	if (ret) {
		EXPECT_EQ(-EOPNOTSUPP, ret);
		expect_project(_metadata, f, 0, false);
	} else {
		expect_project(_metadata, f, PRJ_A, false);
	}
	ksft_print_msg("FS_IOC_FSSETXATTR with PROJINHERIT on a file: %s\n",
		       ret ? "refused (as ext4)" : "flag dropped (as XFS)");

	ASSERT_EQ(0, get_flags(f, &flags));
	ret = set_flags(f, flags | FS_PROJINHERIT_FL);
	if (ret)
		EXPECT_EQ(-EOPNOTSUPP, ret);
	ksft_print_msg("FS_IOC_SETFLAGS with PROJINHERIT on a file: %s\n",
		       ret ? "refused (as ext4)" : "flag dropped (as XFS)");
	ASSERT_EQ(0, get_flags(f, &flags));
	EXPECT_FALSE(has_flag(flags, FS_PROJINHERIT_FL));
}

TEST_F(projid, getflags_shows_projinherit_on_dir)
{
	char d[PATH_MAX];
	unsigned int flags = 0;

	make_dir(_metadata, self, d, "d", PRJ_A, false);
	ASSERT_EQ(0, get_flags(d, &flags));
	EXPECT_FALSE(has_flag(flags, FS_PROJINHERIT_FL));

	/* chattr +P */
	ASSERT_EQ(0, set_flags(d, flags | FS_PROJINHERIT_FL));
	ASSERT_EQ(0, get_flags(d, &flags));
	EXPECT_TRUE(has_flag(flags, FS_PROJINHERIT_FL));
	expect_project(_metadata, d, PRJ_A, true);

	/* chattr -P */
	ASSERT_EQ(0, set_flags(d, flags & ~FS_PROJINHERIT_FL));
	ASSERT_EQ(0, get_flags(d, &flags));
	EXPECT_FALSE(has_flag(flags, FS_PROJINHERIT_FL));
	expect_project(_metadata, d, PRJ_A, false);
}

TEST_F(projid, link_into_other_project_gives_exdev)
{
	char a[PATH_MAX], b[PATH_MAX], f[PATH_MAX], l[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, b, "b", PRJ_B, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	EXPECT_EQ(-1, link(f, path_of(self, l, "b/l")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, access(l, F_OK));
}

/*
 * The check is on the ID, not on the directory: a link into another
 * PROJINHERIT directory of the same project works.
 */
TEST_F(projid, link_into_same_project_succeeds)
{
	char a[PATH_MAX], a2[PATH_MAX], f[PATH_MAX], l[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, a2, "a2", PRJ_A, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	EXPECT_EQ(0, link(f, path_of(self, l, "a2/l")))
		TH_LOG("link: %s", strerror(errno));
}

/* Only the target directory's PROJINHERIT matters. */
TEST_F(projid, link_into_dir_without_projinherit_succeeds)
{
	char a[PATH_MAX], b[PATH_MAX], f[PATH_MAX], l[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, b, "b", PRJ_B, false);
	make_file(_metadata, path_of(self, f, "a/f"));
	EXPECT_EQ(0, link(f, path_of(self, l, "b/l")))
		TH_LOG("link: %s", strerror(errno));
}

TEST_F(projid, rename_into_other_project_gives_exdev)
{
	char a[PATH_MAX], b[PATH_MAX], f[PATH_MAX], t[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, b, "b", PRJ_B, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	EXPECT_EQ(-1, rename(f, path_of(self, t, "b/f")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(0, access(f, F_OK));
	EXPECT_EQ(-1, access(t, F_OK));
}

TEST_F(projid, rename_dir_into_other_project_gives_exdev)
{
	char a[PATH_MAX], b[PATH_MAX], sub[PATH_MAX], t[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, b, "b", PRJ_B, true);
	ASSERT_EQ(0, mkdir(path_of(self, sub, "a/sub"), 0755));
	EXPECT_EQ(-1, rename(sub, path_of(self, t, "b/sub")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(0, access(sub, F_OK));
}

/*
 * The target directory is checked even when it is also the source: a
 * file whose ID was changed cannot be renamed within its PROJINHERIT
 * directory (as on ext4 and XFS).
 */
TEST_F(projid, rename_of_other_project_within_projinherit_dir_gives_exdev)
{
	char a[PATH_MAX], f[PATH_MAX], t[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	ASSERT_EQ(0, set_project_path(f, PRJ_B, false));
	EXPECT_EQ(-1, rename(f, path_of(self, t, "a/g")));
	EXPECT_EQ(EXDEV, errno);
}

TEST_F(projid, rename_into_same_project_succeeds)
{
	char a[PATH_MAX], a2[PATH_MAX], f[PATH_MAX], t[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, a2, "a2", PRJ_A, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	EXPECT_EQ(0, rename(f, path_of(self, t, "a2/f")))
		TH_LOG("rename: %s", strerror(errno));
}

/*
 * RENAME_WHITEOUT follows the rule of a plain rename, and a refused one
 * leaves neither a whiteout nor a moved file behind.
 */
TEST_F(projid, rename_whiteout_into_other_project_gives_exdev)
{
	char a[PATH_MAX], b[PATH_MAX], f[PATH_MAX], t[PATH_MAX];
	struct stat st;

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, b, "b", PRJ_B, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	EXPECT_EQ(-1, renameat2(AT_FDCWD, f, AT_FDCWD, path_of(self, t, "b/f"),
				RENAME_WHITEOUT));
	EXPECT_EQ(EXDEV, errno) TH_LOG("renameat2: %s", strerror(errno));
	ASSERT_EQ(0, lstat(f, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(-1, access(t, F_OK));
}

TEST_F(projid, rename_exchange_across_projects_gives_exdev)
{
	char a[PATH_MAX], b[PATH_MAX], f[PATH_MAX], g[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, b, "b", PRJ_B, true);
	make_file(_metadata, path_of(self, f, "a/f"));
	make_file(_metadata, path_of(self, g, "b/g"));
	EXPECT_EQ(-1, renameat2(AT_FDCWD, f, AT_FDCWD, g, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno) TH_LOG("renameat2: %s", strerror(errno));
	expect_project(_metadata, f, PRJ_A, false);
	expect_project(_metadata, g, PRJ_B, false);
}

/*
 * Only one of the two inodes enters a PROJINHERIT directory of another
 * project: p/g (project B, directory without PROJINHERIT) would move into
 * a/ (project A, PROJINHERIT), a/f into p/. Whichever of the two is named
 * first, the exchange fails, so both directions are checked.
 */
TEST_F(projid, rename_exchange_checks_both_directions)
{
	char a[PATH_MAX], p[PATH_MAX], f[PATH_MAX], g[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, p, "p", 0, false);
	make_file(_metadata, path_of(self, f, "a/f"));
	make_file(_metadata, path_of(self, g, "p/g"));
	ASSERT_EQ(0, set_project_path(g, PRJ_B, false));

	EXPECT_EQ(-1, renameat2(AT_FDCWD, f, AT_FDCWD, g, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno) TH_LOG("a/f <-> p/g: %s", strerror(errno));
	EXPECT_EQ(-1, renameat2(AT_FDCWD, g, AT_FDCWD, f, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno) TH_LOG("p/g <-> a/f: %s", strerror(errno));
	expect_project(_metadata, f, PRJ_A, false);
	expect_project(_metadata, g, PRJ_B, false);
}

/*
 * The same hole with an inode of project 0, the state every inode outside
 * a project tree is in: p/g moves into a/ (project A, PROJINHERIT).
 */
TEST_F(projid, rename_exchange_of_project_0_file_into_projinherit_dir_gives_exdev)
{
	char a[PATH_MAX], p[PATH_MAX], f[PATH_MAX], g[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	make_dir(_metadata, self, p, "p", 0, false);
	make_file(_metadata, path_of(self, f, "a/f"));
	make_file(_metadata, path_of(self, g, "p/g"));

	EXPECT_EQ(-1, renameat2(AT_FDCWD, f, AT_FDCWD, g, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno) TH_LOG("a/f <-> p/g: %s", strerror(errno));
	EXPECT_EQ(-1, renameat2(AT_FDCWD, g, AT_FDCWD, f, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno) TH_LOG("p/g <-> a/f: %s", strerror(errno));
	expect_project(_metadata, f, PRJ_A, false);
	expect_project(_metadata, g, 0, false);
}

/*
 * Special files and symlinks made outside a project tree are in project 0
 * for good: no FS_IOC_FSSETXATTR reaches them on ext4 and tmpfs. A
 * PROJINHERIT directory of another project takes them in neither by
 * rename() (mv copies instead) nor by link(). Here ext4 and XFS differ:
 * XFS lets link() take device nodes, FIFOs and sockets of project 0
 * (xfs_link(): its project setup tools cannot tag them), not symlinks,
 * and rename() nothing. tmpfs follows ext4.
 */
TEST_F(projid, link_of_project_0_special_file_into_project_gives_exdev)
{
	static const mode_t modes[] = { S_IFIFO | 0600, S_IFSOCK | 0600,
					S_IFCHR | 0600 };
	char a[PATH_MAX], src[PATH_MAX], dst[PATH_MAX], name[16];
	size_t i;

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(name, sizeof(name), "s%zu", i);
		ASSERT_EQ(0, mknod(path_of(self, src, name), modes[i],
				   makedev(1, 3)))
			TH_LOG("mknod %s: %s", src, strerror(errno));
		snprintf(name, sizeof(name), "a/s%zu", i);
		EXPECT_EQ(-1, link(src, path_of(self, dst, name)));
		EXPECT_EQ(EXDEV, errno) TH_LOG("link of mode %o: %s",
					       modes[i], strerror(errno));
	}
}

TEST_F(projid, rename_of_project_0_special_file_into_project_gives_exdev)
{
	char a[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	ASSERT_EQ(0, mknod(path_of(self, src, "fifo"), S_IFIFO | 0600, 0));
	EXPECT_EQ(-1, rename(src, path_of(self, dst, "a/fifo")));
	EXPECT_EQ(EXDEV, errno) TH_LOG("rename: %s", strerror(errno));
	EXPECT_EQ(0, access(src, F_OK));
}

TEST_F(projid, link_or_rename_of_project_0_symlink_into_project_gives_exdev)
{
	char a[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];

	make_dir(_metadata, self, a, "a", PRJ_A, true);
	ASSERT_EQ(0, symlink("target", path_of(self, src, "link")));
	/* link() does not follow the symlink: a second name for it */
	EXPECT_EQ(-1, link(src, path_of(self, dst, "a/link")));
	EXPECT_EQ(EXDEV, errno) TH_LOG("link: %s", strerror(errno));
	EXPECT_EQ(-1, rename(src, path_of(self, dst, "a/link2")));
	EXPECT_EQ(EXDEV, errno) TH_LOG("rename: %s", strerror(errno));
}

/* FS_IOC_SETFLAGS on the inode at @path: set or clear FS_IMMUTABLE_FL. */
static int set_immutable(const char *path, bool on)
{
	unsigned int flags;
	int ret = get_flags(path, &flags);

	if (ret)
		return ret;
	return set_flags(path, on ? flags | FS_IMMUTABLE_FL :
				    flags & ~FS_IMMUTABLE_FL);
}

/*
 * An immutable inode keeps its project, as the VFS keeps its owner
 * (chown() gives EPERM): ext4 refuses a project change with EPERM while
 * FS_IMMUTABLE_FL is set before and after the call
 * (ext4_ioctl_check_immutable()). Here ext4 and XFS differ: XFS changes
 * the project of an immutable inode. tmpfs follows ext4. The inode is made
 * mutable again whatever happens, so that the teardown can remove it.
 */
TEST_F(projid, projid_change_of_immutable_inode_gives_eperm)
{
	char f[PATH_MAX];
	__u32 projid = ~0u;
	bool inherit;
	int ret, get;

	make_file(_metadata, path_of(self, f, "f"));
	ASSERT_EQ(0, set_project_path(f, PRJ_A, false));
	ASSERT_EQ(0, set_immutable(f, true));
	ret = set_project_path(f, PRJ_B, false);
	get = get_project(f, &projid, &inherit);
	ASSERT_EQ(0, set_immutable(f, false));

	EXPECT_EQ(-EPERM, ret) TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(-ret));
	EXPECT_EQ(0, get);
	EXPECT_EQ(PRJ_A, projid);
}

/* ... nor its PROJINHERIT flag, on a directory. */
TEST_F(projid, projinherit_change_of_immutable_dir_gives_eperm)
{
	char d[PATH_MAX];
	__u32 projid;
	bool inherit = true;
	int ret, get;

	make_dir(_metadata, self, d, "d", PRJ_A, false);
	ASSERT_EQ(0, set_immutable(d, true));
	ret = set_project_path(d, PRJ_A, true);
	get = get_project(d, &projid, &inherit);
	ASSERT_EQ(0, set_immutable(d, false));

	EXPECT_EQ(-EPERM, ret) TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(-ret));
	EXPECT_EQ(0, get);
	EXPECT_FALSE(inherit);
}

/* Clearing FS_IMMUTABLE_FL in the same call lets the project change. */
TEST_F(projid, projid_change_while_clearing_immutable_succeeds)
{
	char f[PATH_MAX];
	struct fsxattr fsx;
	int fd, ret;

	make_file(_metadata, path_of(self, f, "f"));
	ASSERT_EQ(0, set_immutable(f, true));
	fd = open(f, O_RDONLY | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	if (!ret && ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		ret = -errno;
	if (!ret) {
		fsx.fsx_xflags &= ~FS_XFLAG_IMMUTABLE;
		fsx.fsx_projid = PRJ_B;
		if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
			ret = -errno;
	}
	if (fd >= 0)
		close(fd);
	if (ret)
		set_immutable(f, false);

	EXPECT_EQ(0, ret) TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(-ret));
	expect_project(_metadata, f, ret ? 0 : PRJ_B, false);
	fsx.fsx_xflags = ~0u;
	fd = open(f, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FS_IOC_FSGETXATTR, &fsx));
	close(fd);
	EXPECT_EQ(0U, fsx.fsx_xflags & FS_XFLAG_IMMUTABLE);
}

#define CHILD_SKIP	254

struct userns_args {
	int fd;
	__u32 projid;
	bool inherit;
};

/* errno of FS_IOC_FSSETXATTR in a new user namespace, 0 if it worked */
static int set_project_in_userns(void *p)
{
	struct userns_args *args = p;

	if (unshare(CLONE_NEWUSER))
		return CHILD_SKIP;
	return -set_project(args->fd, args->projid, args->inherit);
}

/*
 * fileattr_set_prepare() in fs/ioctl.c: the project ID can only be
 * changed from the initial user namespace, else EINVAL. The inode is
 * root's and the child keeps its kernel fsuid 0, so it still passes the
 * owner check in the new namespace.
 */
TEST_F(projid, projid_change_in_userns_gives_einval)
{
	struct userns_args args = { .projid = PRJ_B, .inherit = false };
	char f[PATH_MAX];
	int ret;

	make_file(_metadata, path_of(self, f, "f"));
	ASSERT_EQ(0, set_project_path(f, PRJ_A, false));
	args.fd = open(f, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, args.fd);
	ret = run_child_exit(set_project_in_userns, &args);
	close(args.fd);
	if (ret == CHILD_SKIP)
		SKIP(return, "unshare(CLONE_NEWUSER) failed");
	EXPECT_EQ(EINVAL, ret) TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(ret));
	expect_project(_metadata, f, PRJ_A, false);
}

/* The same rule covers the PROJINHERIT flag. */
TEST_F(projid, projinherit_change_in_userns_gives_einval)
{
	struct userns_args args = { .projid = PRJ_A, .inherit = true };
	char d[PATH_MAX];
	int ret;

	make_dir(_metadata, self, d, "d", PRJ_A, false);
	args.fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, args.fd);
	ret = run_child_exit(set_project_in_userns, &args);
	close(args.fd);
	if (ret == CHILD_SKIP)
		SKIP(return, "unshare(CLONE_NEWUSER) failed");
	EXPECT_EQ(EINVAL, ret) TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(ret));
	expect_project(_metadata, d, PRJ_A, false);
}

/* ... and nothing else: an unchanged ID may be written back. */
TEST_F(projid, unchanged_projid_in_userns_is_allowed)
{
	struct userns_args args = { .projid = PRJ_A, .inherit = false };
	char f[PATH_MAX];
	int ret;

	make_file(_metadata, path_of(self, f, "f"));
	ASSERT_EQ(0, set_project_path(f, PRJ_A, false));
	args.fd = open(f, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, args.fd);
	ret = run_child_exit(set_project_in_userns, &args);
	close(args.fd);
	if (ret == CHILD_SKIP)
		SKIP(return, "unshare(CLONE_NEWUSER) failed");
	EXPECT_EQ(0, ret) TH_LOG("FS_IOC_FSSETXATTR: %s", strerror(ret));
	expect_project(_metadata, f, PRJ_A, false);
}

struct unpriv_result {
	int own_file;		/* errno: set PRJ_B on a file it owns */
	int own_file_invalid;	/* errno: set (__u32)-1 on that file */
	int not_owned;		/* errno: set PRJ_B on root's file */
	int own_dir_inherit;	/* errno: set PRJ_B +P on a dir it owns */
};

struct unpriv_args {
	int own_fd, other_fd, dir_fd;
	struct unpriv_result *res;	/* shared with the parent */
};

static int set_project_unprivileged(void *p)
{
	struct unpriv_args *args = p;
	gid_t gid = OTHER_ID;

	if (setgroups(1, &gid) || setresgid(OTHER_ID, OTHER_ID, OTHER_ID) ||
	    setresuid(OTHER_ID, OTHER_ID, OTHER_ID))
		return 1;
	args->res->own_file = -set_project(args->own_fd, PRJ_B, false);
	args->res->own_file_invalid = -set_project(args->own_fd, ~0u, false);
	args->res->not_owned = -set_project(args->other_fd, PRJ_B, false);
	args->res->own_dir_inherit = -set_project(args->dir_fd, PRJ_B, true);
	return 0;
}

/*
 * vfs_fileattr_set() and fileattr_set_prepare() in fs/ioctl.c let the
 * owner of an inode, without any capability, change its project ID and
 * PROJINHERIT from the initial user namespace, to any valid ID (not
 * (__u32)-1: EINVAL). Anyone else gets EPERM. Neither ext4 nor XFS adds
 * a check for CAP_SYS_RESOURCE or similar.
 */
TEST_F(projid, unprivileged_owner_can_set_projid_only_as_fs_ioctl_allows)
{
	char own[PATH_MAX], other[PATH_MAX], d[PATH_MAX];
	struct unpriv_args args;
	struct unpriv_result *res;

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	memset(res, 0xff, sizeof(*res));

	make_file(_metadata, path_of(self, own, "own"));
	make_file(_metadata, path_of(self, other, "other"));
	make_dir(_metadata, self, d, "d", 0, false);
	ASSERT_EQ(0, chown(own, OTHER_ID, OTHER_ID));
	ASSERT_EQ(0, chown(d, OTHER_ID, OTHER_ID));
	ASSERT_EQ(0, set_project_path(own, PRJ_A, false));
	ASSERT_EQ(0, set_project_path(other, PRJ_A, false));

	/* Opened by root: the child needs no search permission on self->dir. */
	args.own_fd = open(own, O_RDONLY | O_CLOEXEC);
	args.other_fd = open(other, O_RDONLY | O_CLOEXEC);
	args.dir_fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	args.res = res;
	ASSERT_LE(0, args.own_fd);
	ASSERT_LE(0, args.other_fd);
	ASSERT_LE(0, args.dir_fd);
	ASSERT_EQ(0, run_child_exit(set_project_unprivileged, &args))
		TH_LOG("cannot drop privileges to %d", OTHER_ID);
	close(args.own_fd);
	close(args.other_fd);
	close(args.dir_fd);

	EXPECT_EQ(0, res->own_file) TH_LOG("own file: %s", strerror(res->own_file));
	EXPECT_EQ(EINVAL, res->own_file_invalid)
		TH_LOG("own file, ID -1: %s", strerror(res->own_file_invalid));
	EXPECT_EQ(EPERM, res->not_owned)
		TH_LOG("root's file: %s", strerror(res->not_owned));
	EXPECT_EQ(0, res->own_dir_inherit)
		TH_LOG("own dir, +P: %s", strerror(res->own_dir_inherit));
	expect_project(_metadata, own, PRJ_B, false);
	expect_project(_metadata, other, PRJ_A, false);
	expect_project(_metadata, d, PRJ_B, true);
	munmap(res, sizeof(*res));
}

GUEST_TEST_MAIN(test_dir, "PROJQUOTA_DIR")
