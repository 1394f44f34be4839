// SPDX-License-Identifier: GPL-2.0
/*
 * tmpfs's own side of project quota, which ext4 and XFS have no counterpart
 * of: the prjquota mount options (shown in /proc/mounts, default limits for
 * every project, bad values and remounts refused with a message that names
 * the problem, refused in a user namespace), project IDs on a mount without
 * quota, and huge pages charged at their size.  Each test mounts its own
 * tmpfs instances under /tmp; the messages are read back from the fs
 * context, as mount(8) shows them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <linux/quota.h>

#include "kselftest_harness.h"
#include "guest.h"

/* The new mount API: the same numbers on every architecture. */
#define NR_fsopen	430
#define NR_fsconfig	431
#define NR_fspick	433
#define CFG_SET_FLAG	0
#define CFG_SET_STRING	1
#define CFG_CMD_CREATE	6
#define CFG_CMD_RECONFIGURE 7

#define MNT	"/tmp/prjquota-options"

static int fs_open(void)
{
	return syscall(NR_fsopen, "tmpfs", 0);
}

/* Set @key (to @val, or as a flag when NULL); 0 or -errno. */
static int fs_set(int fd, const char *key, const char *val)
{
	if (syscall(NR_fsconfig, fd, val ? CFG_SET_STRING : CFG_SET_FLAG, key,
		    val, 0))
		return -errno;
	return 0;
}

static int fs_cmd(int fd, int cmd)
{
	if (syscall(NR_fsconfig, fd, cmd, NULL, NULL, 0))
		return -errno;
	return 0;
}

/* The fs context's messages, e.g. "e tmpfs: Bad value for '...'". */
static void fs_log(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	buf[0] = '\0';
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0) {
		len += n;
		buf[len++] = '\n';
	}
	buf[len < size ? len : size - 1] = '\0';
}

static bool mount_line(const char *dir, char *line, size_t size)
{
	char d[256], m[256];
	FILE *f = fopen("/proc/self/mounts", "r");
	bool found = false;

	while (f && fgets(line, size, f))
		if (sscanf(line, "%255s %255s", d, m) == 2 && !strcmp(m, dir)) {
			found = true;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

FIXTURE(opts) {
	bool mounted;
};

FIXTURE_SETUP(opts)
{
	if (geteuid())
		SKIP(return, "needs root");
	mkdir(MNT, 0755);
}

FIXTURE_TEARDOWN(opts)
{
	if (self->mounted)
		umount(MNT);
}

static void do_mount(struct __test_metadata *_metadata,
		     FIXTURE_DATA(opts) *self, const char *opts)
{
	ASSERT_EQ(0, mount("tmpfs", MNT, "tmpfs", 0, opts))
		TH_LOG("mount -o %s: %s", opts, strerror(errno));
	self->mounted = true;
}

static int set_project_dir(const char *path, unsigned int id)
{
	int fd, ret;

	if (mkdir(path, 0755))
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	ret = guest_set_project(fd, id, true);
	close(fd);
	return ret;
}

static int get_quota(unsigned int id, struct if_dqblk *dq)
{
	int fd = open(MNT, O_RDONLY | O_DIRECTORY), ret;

	if (fd < 0)
		return -errno;
	ret = guest_prj_quotactl(fd, Q_GETQUOTA, id, dq);
	close(fd);
	return ret;
}

TEST_F(opts, prjquota_options_show_in_proc_mounts)
{
	char line[1024];

	do_mount(_metadata, self, "size=16m,prjquota,prjquota_block_hardlimit=1m,"
		 "prjquota_inode_hardlimit=10");
	ASSERT_TRUE(mount_line(MNT, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, ",prjquota,")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, ",prjquota_block_hardlimit=1048576"))
		TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, ",prjquota_inode_hardlimit=10"))
		TH_LOG("%s", line);
	EXPECT_EQ(NULL, strstr(line, "usrquota")) TH_LOG("%s", line);
}

TEST_F(opts, mount_time_hard_limits_apply_to_every_new_project)
{
	struct if_dqblk dq;

	do_mount(_metadata, self, "size=16m,prjquota,prjquota_block_hardlimit=1m,"
		 "prjquota_inode_hardlimit=10");
	ASSERT_EQ(0, set_project_dir(MNT "/p", 77));
	ASSERT_EQ(0, get_quota(77, &dq));
	EXPECT_EQ(1024ULL, dq.dqb_bhardlimit);	/* KiB */
	EXPECT_EQ(10ULL, dq.dqb_ihardlimit);
	EXPECT_EQ(1ULL, dq.dqb_curinodes);
}

TEST_F(opts, bad_limit_value_is_refused_naming_the_option)
{
	static const char * const keys[] = {
		"prjquota_block_hardlimit", "prjquota_inode_hardlimit",
	};
	static const char * const vals[] = { "lots", "0", "1x", "" };
	char log[1024];
	size_t k, v;
	int fd;

	for (k = 0; k < 2; k++) {
		for (v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
			fd = fs_open();
			ASSERT_LE(0, fd);
			EXPECT_EQ(-EINVAL, fs_set(fd, keys[k], vals[v]))
				TH_LOG("%s=%s", keys[k], vals[v]);
			fs_log(fd, log, sizeof(log));
			EXPECT_NE(NULL, strstr(log, keys[k]))
				TH_LOG("%s=%s: message %s", keys[k], vals[v], log);
			close(fd);
		}
	}
	/* too large for the quota core */
	fd = fs_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, fs_set(fd, "prjquota_inode_hardlimit",
				  "9223372036854775808"));
	close(fd);
}

static int reconfigure(const char *key, const char *val, char *log, size_t size)
{
	int fd = syscall(NR_fspick, AT_FDCWD, MNT, 0), ret;

	if (fd < 0)
		return -errno;
	ret = fs_set(fd, key, val);
	if (!ret)
		ret = fs_cmd(fd, CFG_CMD_RECONFIGURE);
	fs_log(fd, log, size);
	close(fd);
	return ret;
}

TEST_F(opts, remount_cannot_add_project_quota)
{
	char log[1024];

	do_mount(_metadata, self, "size=16m,usrquota");
	EXPECT_EQ(-EINVAL, reconfigure("prjquota", NULL, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "Cannot enable another quota type on remount"))
		TH_LOG("message: %s", log);
}

TEST_F(opts, remount_cannot_enable_quota_on_a_mount_without)
{
	char log[1024];

	do_mount(_metadata, self, "size=16m");
	EXPECT_EQ(-EINVAL, reconfigure("prjquota", NULL, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "Cannot enable quota on remount"))
		TH_LOG("message: %s", log);
}

TEST_F(opts, remount_cannot_change_the_project_limits)
{
	char log[1024], line[1024];

	do_mount(_metadata, self, "size=16m,prjquota,prjquota_block_hardlimit=1m");
	EXPECT_EQ(-EINVAL, reconfigure("prjquota_block_hardlimit", "2m", log,
				       sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "Cannot change global quota limit on remount"))
		TH_LOG("message: %s", log);
	/* the same value, or other options, still remount */
	EXPECT_EQ(0, reconfigure("prjquota_block_hardlimit", "1m", log, sizeof(log)))
		TH_LOG("message: %s", log);
	EXPECT_EQ(0, reconfigure("size", "32m", log, sizeof(log)))
		TH_LOG("message: %s", log);
	ASSERT_TRUE(mount_line(MNT, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "prjquota_block_hardlimit=1048576"))
		TH_LOG("%s", line);
}

static int userns_prjquota(char *log, size_t size)
{
	int fd, ret;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1000 - errno;
	fd = fs_open();
	if (fd < 0)
		return -2000 - errno;
	ret = fs_set(fd, "prjquota", NULL);
	fs_log(fd, log, size);
	close(fd);
	return ret;
}

TEST_F(opts, prjquota_is_refused_in_a_user_namespace_mount)
{
	char *log = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, log);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* an unprivileged user, who owns the new namespaces */
		if (setresgid(4711, 4711, 4711) || setresuid(4711, 4711, 4711))
			_exit(2);
		_exit(-userns_prjquota(log, 4096) == EINVAL ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status %#x, message %s", status, log);
	EXPECT_NE(NULL, strstr(log, "Quotas in unprivileged tmpfs mounts are unsupported"))
		TH_LOG("message: %s", log);
	munmap(log, 4096);
}

TEST_F(opts, project_ids_work_without_quota_on_the_mount)
{
	struct if_dqblk dq;
	struct fsxattr fsx;
	int fd;

	do_mount(_metadata, self, "size=16m");
	ASSERT_EQ(0, set_project_dir(MNT "/p", 78));
	fd = open(MNT "/p/f", O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FS_IOC_FSGETXATTR, &fsx));
	EXPECT_EQ(78U, fsx.fsx_projid);
	EXPECT_EQ(0, guest_set_project(fd, 79, false));
	close(fd);
	/* and no quota to ask about: tmpfs has no quotactl ops then */
	EXPECT_EQ(-ENOSYS, get_quota(78, &dq));
}

/*
 * Without size= and nr_inodes= tmpfs reports 0 blocks and 0 inodes; in a
 * PROJINHERIT directory the project's limits are the only totals there are,
 * and statfs reports them (ext4 and XFS always have a size to cap them by).
 */
TEST_F(opts, statfs_without_size_reports_the_project_limits)
{
	struct if_dqblk dq = {
		.dqb_bhardlimit = 1024, .dqb_ihardlimit = 100,
		.dqb_valid = QIF_LIMITS,
	};
	struct statfs sfs;
	char buf[8192] = { 1 };
	int fd;

	do_mount(_metadata, self, "size=0,nr_inodes=0,prjquota");
	ASSERT_EQ(0, statfs(MNT, &sfs));
	EXPECT_EQ(0ULL, (unsigned long long)sfs.f_blocks);
	EXPECT_EQ(0ULL, (unsigned long long)sfs.f_files);

	ASSERT_EQ(0, set_project_dir(MNT "/p", 81));
	fd = open(MNT, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, guest_prj_quotactl(fd, Q_SETQUOTA, 81, &dq));
	close(fd);
	fd = open(MNT "/p/f", O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));
	close(fd);

	ASSERT_EQ(0, statfs(MNT "/p", &sfs));
	EXPECT_EQ(1024ULL * 1024, (unsigned long long)sfs.f_blocks * sfs.f_bsize);
	EXPECT_EQ(1024ULL * 1024 - sizeof(buf),
		  (unsigned long long)sfs.f_bfree * sfs.f_bsize);
	EXPECT_EQ(sfs.f_bfree, sfs.f_bavail);
	EXPECT_EQ(100ULL, (unsigned long long)sfs.f_files);
	EXPECT_EQ(98ULL, (unsigned long long)sfs.f_ffree);	/* p and p/f */
}

static long sysfs_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (f && !fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	return atol(buf);
}

TEST_F(opts, huge_pages_are_charged_at_their_size)
{
	long hpage = sysfs_long("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	struct if_dqblk dq;
	char buf[4096] = { 1 };
	struct stat st;
	int fd;

	if (hpage <= 0)
		SKIP(return, "no transparent huge pages in this kernel");
	do_mount(_metadata, self, "size=64m,huge=always,prjquota");
	ASSERT_EQ(0, set_project_dir(MNT "/p", 80));
	ASSERT_EQ(0, get_quota(80, &dq));
	EXPECT_EQ(0ULL, dq.dqb_curspace);

	fd = open(MNT "/p/f", O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, hpage));
	ASSERT_EQ((ssize_t)sizeof(buf), pwrite(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(0, get_quota(80, &dq));
	/* one 4 KiB write, one huge page: the quota sees all of it */
	EXPECT_EQ((long long)st.st_blocks * 512, (long long)dq.dqb_curspace);
	EXPECT_EQ(hpage, (long long)dq.dqb_curspace)
		TH_LOG("%llu bytes charged for a huge page of %ld",
		       (unsigned long long)dq.dqb_curspace, hpage);

	ASSERT_EQ(0, ftruncate(fd, 0));
	close(fd);
	ASSERT_EQ(0, get_quota(80, &dq));
	EXPECT_EQ(0ULL, dq.dqb_curspace);
}

TEST_HARNESS_MAIN
