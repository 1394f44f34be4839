/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the project quota programs (tests/projquota, tests/demo,
 * bench/prjquota): project IDs as chattr -p sets them, quotactl_fd(2),
 * and the test directories' chores (paths, removal, forked children).
 * Include it as "projquota/projquota.h" from another topic.
 */
#ifndef PROJQUOTA_H
#define PROJQUOTA_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/quota.h>

#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443	/* the same on every architecture */
#endif

/* quotactl_fd(@fd, QCMD(@cmd, @type), @id, @addr); 0 or -errno. */
static inline int sys_quotactl_fd(int fd, int cmd, int type, unsigned int id,
				  void *addr)
{
	if (syscall(__NR_quotactl_fd, fd, QCMD(cmd, type), id, addr))
		return -errno;
	return 0;
}

/* The same for PRJQUOTA. */
static inline int prj_quotactl(int fd, int cmd, unsigned int id, void *addr)
{
	return sys_quotactl_fd(fd, cmd, PRJQUOTA, id, addr);
}

/* Q_GETQUOTA of project @id on the filesystem mounted at @mnt; 0 or -errno. */
static inline int prj_getquota(const char *mnt, unsigned int id,
			       struct if_dqblk *dq)
{
	int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = prj_quotactl(fd, Q_GETQUOTA, id, dq);
	close(fd);
	return ret;
}

/*
 * Set the project ID of the inode open at @fd as chattr -p does: read its
 * fsxattr, change fsx_projid (and set or clear PROJINHERIT as @inherit
 * says), write it back. Returns 0 or -errno.
 */
static inline int set_project(int fd, unsigned int projid, bool inherit)
{
	struct fsxattr fsx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		return -errno;
	fsx.fsx_projid = projid;
	if (inherit)
		fsx.fsx_xflags |= FS_XFLAG_PROJINHERIT;
	else
		fsx.fsx_xflags &= ~FS_XFLAG_PROJINHERIT;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
		return -errno;
	return 0;
}

/* set_project() on the inode at @path. */
static inline int set_project_path(const char *path, unsigned int projid,
				   bool inherit)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = set_project(fd, projid, inherit);
	close(fd);
	return ret;
}

/* @buf = @dir / @name; @buf has PATH_MAX bytes. */
static inline char *join(char *buf, const char *dir, const char *name)
{
	/* Test directories have short names: no test expects this. */
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		abort();
	return buf;
}

static inline int rm_one(const char *path, const struct stat *st, int type,
			 struct FTW *ftw)
{
	return remove(path) && errno != ENOENT ? -1 : 0;
}

/* Remove @path and what is below it (what is gone already is no error). */
static inline int rm_tree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Exit status of a child of run_child() that could not drop its capability. */
#define CHILD_NOCAP	253

/* Drop @cap from the effective, permitted and inheritable sets. */
static inline int drop_capability(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
	data[CAP_TO_INDEX(cap)].permitted &= ~CAP_TO_MASK(cap);
	data[CAP_TO_INDEX(cap)].inheritable &= ~CAP_TO_MASK(cap);
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

/*
 * Run @fn in a forked child, without CAP_SYS_RESOURCE if @drop, and
 * return its wait status, or -1. The child must only use plain syscalls
 * and _exit(): no ASSERT_*, which would unwind into the harness in the
 * wrong process.
 */
static inline int run_child(int (*fn)(void *), void *arg, bool drop)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (drop && drop_capability(CAP_SYS_RESOURCE))
			_exit(CHILD_NOCAP);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Memory a run_child() child can write its results to, or NULL. */
static inline void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* run_child() with every capability: the child's exit status, or -1. */
static inline int run_child_exit(int (*fn)(void *), void *arg)
{
	int status = run_child(fn, arg, false);

	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif
