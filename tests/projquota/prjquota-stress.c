// SPDX-License-Identifier: GPL-2.0
/*
 * Project quota under load and under injected faults, on the filesystem
 * mounted at argv[1] (else at $PROJQUOTA_DIR) with prjquota (tmpfs, ext4
 * and XFS alike).
 *
 * Stress: several processes create, write, truncate, punch, link, rename
 * (within and across projects) and unlink files in a few project
 * directories, and move files between projects with FS_IOC_FSSETXATTR, all
 * at once.  Afterwards each project's usage from Q_GETQUOTA must equal what
 * a walk of the tree finds: the sum of st_blocks of its inodes and their
 * count.  A charge lost or counted twice anywhere shows up here.
 *
 * Faults: the same operations with failslab and fail_page_alloc failing
 * the test's own allocations (task-filter, /proc/self/make-it-fail).  Every
 * failure must come back as an error from the system call, and once the
 * files are gone the projects' usage must be back to what it was: no charge
 * leaked on an error path.  The harness's kmemleak scan after the unmount
 * and its splat check cover the rest.  Only on tmpfs: ext4 and XFS are the
 * reference for the semantics, and may shut down on an injected error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/quota.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "projquota.h"

#define NR_PROJECTS	4
#define NR_WORKERS	4
#define NR_FILES	16	/* names per project directory */
#define OPS		600	/* per worker */
/* Below 65536, so that XFS without projid32bit takes them too. */
#define PRJ_BASE	4801u

static const char *test_dir = "/tmp";

/* What a walk of the tree says each project of ours uses. */
struct usage {
	long long bytes[NR_PROJECTS];
	long long inodes[NR_PROJECTS];
};

static struct usage *walk_usage;
static ino_t seen[65536];
static int nr_seen;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	struct fsxattr fsx;
	int fd, i;

	if (type == FTW_SL)
		return 0;	/* no fsxattr; the tests make none */
	for (i = 0; i < nr_seen; i++)
		if (seen[i] == st->st_ino)
			return 0;	/* a hard link counts once */
	if (nr_seen < (int)(sizeof(seen) / sizeof(seen[0])))
		seen[nr_seen++] = st->st_ino;
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (!ioctl(fd, FS_IOC_FSGETXATTR, &fsx) && fsx.fsx_projid >= PRJ_BASE &&
	    fsx.fsx_projid < PRJ_BASE + NR_PROJECTS) {
		walk_usage->bytes[fsx.fsx_projid - PRJ_BASE] += st->st_blocks * 512LL;
		walk_usage->inodes[fsx.fsx_projid - PRJ_BASE]++;
	}
	close(fd);
	return 0;
}

FIXTURE(stress) {
	char dir[PATH_MAX];
	char mnt[PATH_MAX];
	bool tmpfs;
};

FIXTURE_SETUP(stress)
{
	struct statfs sfs;
	char path[PATH_MAX + 32];
	int i;

	if (!guest_mount_has_option(test_dir, "prjquota"))
		SKIP(return, "%s is not mounted with prjquota", test_dir);
	snprintf(self->mnt, sizeof(self->mnt), "%s", test_dir);
	ASSERT_EQ(0, statfs(test_dir, &sfs));
	self->tmpfs = sfs.f_type == TMPFS_MAGIC;
	snprintf(self->dir, sizeof(self->dir), "%s/prjquota-stress", test_dir);
	rm_tree(self->dir);
	ASSERT_EQ(0, mkdir(self->dir, 0755));

	for (i = 0; i < NR_PROJECTS; i++) {
		snprintf(path, sizeof(path), "%s/p%d", self->dir, i);
		ASSERT_EQ(0, mkdir(path, 0755));
		ASSERT_EQ(0, set_project_path(path, PRJ_BASE + i, true));
	}
	/* files that change projects live here, outside PROJINHERIT */
	snprintf(path, sizeof(path), "%s/loose", self->dir);
	ASSERT_EQ(0, mkdir(path, 0755));
}

FIXTURE_TEARDOWN(stress)
{
	rm_tree(self->dir);
}

static unsigned int rnd(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return (*seed >> 8) & 0xffffff;
}

/*
 * One random operation on the tree.  Returns 0 or the errno of a failing
 * call; expected misses (ENOENT, EEXIST, EXDEV across projects) count as 0.
 * Anything else, and EXDEV where it must not happen, is returned.
 */
static char buf[65536];

static int one_op(const char *dir, unsigned int *seed, bool faults, int worker)
{
	char a[PATH_MAX + 64], b[PATH_MAX + 64];
	int pa = rnd(seed) % NR_PROJECTS, pb = rnd(seed) % NR_PROJECTS;
	int op = rnd(seed) % 9, fd, ret = 0;
	off_t off = (rnd(seed) % 64) * 4096, len = (rnd(seed) % 16 + 1) * 4096;

	snprintf(a, sizeof(a), "%s/p%d/f%u", dir, pa, rnd(seed) % NR_FILES);
	snprintf(b, sizeof(b), "%s/p%d/f%u", dir, pb, rnd(seed) % NR_FILES);
	switch (op) {
	case 0:
	case 1:	/* create or extend */
		fd = open(a, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return errno;
		if (pwrite(fd, buf, len, off) < 0)
			ret = errno;
		close(fd);
		return ret;
	case 2:	/* shrink */
		if (truncate(a, off) && errno != ENOENT)
			return errno;
		return 0;
	case 3:	/* punch or allocate */
		fd = open(a, O_WRONLY);
		if (fd < 0)
			return errno == ENOENT ? 0 : errno;
		if (fallocate(fd, rnd(seed) & 1 ?
			      FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE : 0,
			      off, len))
			ret = errno;
		close(fd);
		return ret;
	case 4:	/* rename, maybe into another project: EXDEV there */
		if (!rename(a, b))
			return pa == pb ? 0 : EXDEV;
		if (errno == ENOENT || (errno == EXDEV && pa != pb))
			return 0;
		return errno;
	case 5:	/* hard link, likewise */
		if (!link(a, b))
			return pa == pb ? 0 : EXDEV;
		if (errno == ENOENT || errno == EEXIST || (errno == EXDEV && pa != pb))
			return 0;
		return errno;
	case 6:
		if (unlink(a) && errno != ENOENT)
			return errno;
		return 0;
	case 7:	/* move a loose file to another project */
		snprintf(a, sizeof(a), "%s/loose/f%u", dir, rnd(seed) % NR_FILES);
		fd = open(a, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return errno;
		if (pwrite(fd, buf, len, 0) < 0)
			ret = errno;
		close(fd);
		if (!ret)
			ret = -set_project_path(a, PRJ_BASE + pb, false);
		return ret == ENOENT ? 0 : ret;
	default: /* a shared mapping that allocates pages on fault */
		if (faults)
			return 0;	/* a failed fault is SIGBUS, not an errno */
		/* the worker's own file: a truncate by another would SIGBUS */
		snprintf(a, sizeof(a), "%s/p%d/m%d", dir, pa, worker);
		fd = open(a, O_RDWR | O_CREAT, 0644);
		if (fd < 0)
			return errno;
		if (!ftruncate(fd, off + len)) {
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, off);

			if (p != MAP_FAILED) {
				memset(p, 1, len);
				munmap(p, len);
			} else {
				ret = errno;
			}
		} else {
			ret = errno;
		}
		close(fd);
		return ret;
	}
}

static void expect_usage_matches_tree(struct __test_metadata *_metadata,
				      FIXTURE_DATA(stress) *self)
{
	struct usage u = { };
	struct if_dqblk dq;
	int i;

	sync();
	walk_usage = &u;
	nr_seen = 0;
	ASSERT_EQ(0, nftw(self->dir, walk_one, 16, FTW_PHYS));
	for (i = 0; i < NR_PROJECTS; i++) {
		ASSERT_EQ(0, prj_getquota(self->mnt, PRJ_BASE + i, &dq));
		EXPECT_EQ(u.bytes[i], (long long)dq.dqb_curspace)
			TH_LOG("project %u: quota says %llu bytes, the tree %lld",
			       PRJ_BASE + i, (unsigned long long)dq.dqb_curspace,
			       u.bytes[i]);
		EXPECT_EQ(u.inodes[i], (long long)dq.dqb_curinodes)
			TH_LOG("project %u: quota says %llu inodes, the tree %lld",
			       PRJ_BASE + i, (unsigned long long)dq.dqb_curinodes,
			       u.inodes[i]);
	}
}

TEST_F_TIMEOUT(stress, usage_equals_the_tree_after_concurrent_changes, 600)
{
	pid_t pids[NR_WORKERS];
	int i, status;

	for (i = 0; i < NR_WORKERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			unsigned int seed = 1000 + i;
			int n, err;

			for (n = 0; n < OPS; n++) {
				err = one_op(self->dir, &seed, false, i);
				if (err) {
					fprintf(stderr, "# worker %d op %d: %s\n",
						i, n, strerror(err));
					_exit(1);
				}
			}
			_exit(0);
		}
	}
	for (i = 0; i < NR_WORKERS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("worker %d: status %#x", i, status);
	}
	expect_usage_matches_tree(_metadata, self);
}

static int write_debugfs(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", dir, file);
	return guest_write_file(path, val);
}

/* Fail this task's allocations, sleeping ones and single pages included. */
static int setup_fault(const char *dir, const char *probability)
{
	static const char * const settings[][2] = {
		{ "interval", "1" }, { "times", "-1" }, { "space", "0" },
		{ "verbose", "0" }, { "task-filter", "Y" },
		{ "ignore-gfp-wait", "N" },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		ret = write_debugfs(dir, settings[i][0], settings[i][1]);
		if (ret)
			return ret;
	}
	if (!strcmp(dir, "fail_page_alloc")) {
		ret = write_debugfs(dir, "min-order", "0");
		if (!ret)
			ret = write_debugfs(dir, "ignore-gfp-highmem", "N");
		if (ret)
			return ret;
	}
	return write_debugfs(dir, "probability", probability);
}

TEST_F_TIMEOUT(stress, injected_allocation_failures_come_back_as_errors_and_leak_nothing, 300)
{
	/* tmpfs: ENOSPC when an inode cannot be had, else ENOMEM */
	static const int allowed[] = { 0, ENOMEM, ENOSPC };
	int status, i;
	pid_t pid;

	if (!self->tmpfs)
		SKIP(return, "fault injection targets tmpfs only");
	if (access("/sys/kernel/debug/failslab", F_OK) ||
	    access("/sys/kernel/debug/fail_page_alloc", F_OK))
		SKIP(return, "no failslab or fail_page_alloc in this kernel");
	ASSERT_EQ(0, setup_fault("failslab", "5"));
	ASSERT_EQ(0, setup_fault("fail_page_alloc", "5"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned int seed = 77;
		int n, err, fd, errors = 0;
		size_t k;

		/* the buffer is faulted in now, not under injection */
		memset(buf, 0, sizeof(buf));
		fd = open("/proc/self/make-it-fail", O_WRONLY);
		if (fd < 0 || write(fd, "1", 1) != 1)
			_exit(2);
		close(fd);
		for (n = 0; n < OPS; n++) {
			err = one_op(self->dir, &seed, true, 0);
			for (k = 0; k < sizeof(allowed) / sizeof(allowed[0]); k++)
				if (err == allowed[k])
					break;
			if (k == sizeof(allowed) / sizeof(allowed[0])) {
				fprintf(stderr, "# op %d: unexpected %s\n", n,
					strerror(err));
				_exit(1);
			}
			errors += err != 0;
		}
		fprintf(stderr, "# %d of %d operations failed under injection\n",
			errors, OPS);
		_exit(errors ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	write_debugfs("failslab", "probability", "0");
	write_debugfs("fail_page_alloc", "probability", "0");
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 3)
		TH_LOG("no operation failed: the injection did not take");
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status %#x", status);

	/* what survived is charged exactly; once it is gone, nothing is */
	expect_usage_matches_tree(_metadata, self);
	for (i = 0; i < NR_PROJECTS; i++) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/p%d", self->dir, i);
		rm_tree(path);
	}
	{
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/loose", self->dir);
		rm_tree(path);
	}
	sync();
	for (i = 0; i < NR_PROJECTS; i++) {
		struct if_dqblk dq;

		ASSERT_EQ(0, prj_getquota(self->mnt, PRJ_BASE + i, &dq));
		EXPECT_EQ(0, (long long)dq.dqb_curspace)
			TH_LOG("project %u keeps %llu bytes", PRJ_BASE + i,
			       (unsigned long long)dq.dqb_curspace);
		EXPECT_EQ(0, (long long)dq.dqb_curinodes)
			TH_LOG("project %u keeps %llu inodes", PRJ_BASE + i,
			       (unsigned long long)dq.dqb_curinodes);
	}
}

GUEST_TEST_MAIN(test_dir, "PROJQUOTA_DIR")
