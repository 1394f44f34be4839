// SPDX-License-Identifier: GPL-2.0
/*
 * make run's demo: what this kernel is, which patches it carries, and a short
 * scene for each feature of the series, printed as the commands a user would
 * type with what the kernel answered.  It exits non-zero when the kernel does
 * not answer as the series says, so that make run shows a broken feature.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <linux/quota.h>

#include "projquota/projquota.h"

#define MNT	"/mnt/demo"
#define USER	1000

static int surprises;

static void cmd(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Print @what's outcome; count it as a surprise unless it is @want. */
static void outcome(int err, int want, const char *what)
{
	if (err)
		printf("%s: %s\n", what, strerror(err));
	if (err != want) {
		printf("!! expected %s\n", want ? strerror(want) : "success");
		surprises++;
	}
}

static unsigned int project_of(const char *path)
{
	struct fsxattr fa = { .fsx_projid = ~0U };
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		ioctl(fd, FS_IOC_FSGETXATTR, &fa);
		close(fd);
	}
	return fa.fsx_projid;
}

static int quota(int cmd, unsigned int id, struct if_dqblk *dq)
{
	int fd = open(MNT, O_RDONLY), err;

	if (fd < 0)
		return errno;
	err = -prj_quotactl(fd, cmd, id, dq);
	close(fd);
	return err;
}

static int set_limit(unsigned int id, unsigned long long kib)
{
	struct if_dqblk dq = {
		.dqb_bhardlimit = kib,
		.dqb_valid = QIF_BLIMITS,
	};

	return quota(Q_SETQUOTA, id, &dq);
}

static void df(const char *path)
{
	struct statfs s;

	if (statfs(path, &s)) {
		outcome(errno, 0, "statfs");
		return;
	}
	printf("%-22s %8llu KiB total %8llu KiB free\n", path,
	       (unsigned long long)s.f_blocks * s.f_bsize / 1024,
	       (unsigned long long)s.f_bfree * s.f_bsize / 1024);
}

static void report(unsigned int id)
{
	struct if_dqblk dq;

	if (quota(Q_GETQUOTA, id, &dq)) {
		outcome(errno, 0, "Q_GETQUOTA");
		return;
	}
	printf("project %u: %6llu KiB used of %6llu KiB, %llu inodes\n", id,
	       (unsigned long long)dq.dqb_curspace / 1024,
	       (unsigned long long)dq.dqb_bhardlimit,
	       (unsigned long long)dq.dqb_curinodes);
}

/* Append 64 KiB blocks to @path as an unprivileged user until it fails. */
static void fill_as_user(const char *path)
{
	static char buf[65536];
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		long total = 0;
		ssize_t n;
		int fd;

		if (setresgid(USER, USER, USER) || setresuid(USER, USER, USER)) {
			printf("setresuid: %s\n", strerror(errno));
			_exit(2);
		}
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0) {
			printf("open %s: %s\n", path, strerror(errno));
			_exit(3);
		}
		while ((n = write(fd, buf, sizeof(buf))) > 0)
			total += n;
		printf("wrote %ld KiB, then: %s\n", total / 1024,
		       n < 0 ? strerror(errno) : "end");
		fflush(stdout);
		_exit(n < 0 && errno == EDQUOT ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("!! expected the write to stop with EDQUOT\n");
		surprises++;
	}
}

/* What mv(1) does: rename, and on EXDEV copy and unlink. */
static void mv(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in, out;

	if (!rename(from, to)) {
		printf("!! rename across projects succeeded\n");
		surprises++;
		return;
	}
	outcome(errno, EXDEV, "rename");
	printf("mv copies instead:\n");
	in = open(from, O_RDONLY);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (in < 0 || out < 0) {
		outcome(errno, 0, "open");
		return;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	close(in);
	close(out);
	outcome(unlink(from) ? errno : 0, 0, "unlink");
}

static void banner(void)
{
	char line[1024];
	struct utsname u;
	FILE *f;

	if (uname(&u))
		exit(1);
	printf("Linux %s %s %s\n", u.release, u.version, u.machine);
	f = fopen("/etc/harness-banner", "r");
	if (!f)
		exit(1);
	printf("Built from:\n");
	while (fgets(line, sizeof(line), f))
		printf("  %s", line);
	fclose(f);
}

static void tmpfs_project_quota(void)
{
	int fd;

	printf("\n== tmpfs project quota: two projects share one tmpfs ==\n");
	cmd("mount -t tmpfs -o size=64m,prjquota tmpfs " MNT);
	mkdir(MNT, 0755);
	if (mount("tmpfs", MNT, "tmpfs", 0, "size=64m,prjquota")) {
		outcome(errno, 0, "mount");
		return;
	}
	cmd("mkdir build ci; chattr +P -p 100 build; chattr +P -p 200 ci");
	mkdir(MNT "/build", 0755);
	mkdir(MNT "/ci", 0755);
	outcome(-set_project_path(MNT "/build", 100, true), 0, "chattr build");
	outcome(-set_project_path(MNT "/ci", 200, true), 0, "chattr ci");
	outcome(chown(MNT "/build", USER, USER) ? errno : 0, 0, "chown");
	outcome(chown(MNT "/ci", USER, USER) ? errno : 0, 0, "chown");

	cmd("setquota -P 100 0 8M 0 0 " MNT "; setquota -P 200 0 2M 0 0 " MNT);
	outcome(set_limit(100, 8192), 0, "setquota 100");
	outcome(set_limit(200, 2048), 0, "setquota 200");

	cmd("df " MNT " " MNT "/build " MNT "/ci");
	df(MNT);
	df(MNT "/build");
	df(MNT "/ci");

	cmd("su user -c 'cat /dev/zero >> ci/log'");
	fill_as_user(MNT "/ci/log");
	report(200);

	cmd("truncate -s 0 ci/log; dd if=/dev/zero of=build/out.o bs=1M count=1");
	outcome(truncate(MNT "/ci/log", 0) ? errno : 0, 0, "truncate");
	fd = open(MNT "/build/out.o", O_WRONLY | O_CREAT, 0644);
	if (fd >= 0) {
		static char mib[1 << 20];

		if (write(fd, mib, sizeof(mib)) != sizeof(mib))
			outcome(errno, 0, "write");
		close(fd);
	}
	report(100);
	report(200);

	cmd("mv build/out.o ci/");
	mv(MNT "/build/out.o", MNT "/ci/out.o");
	cmd("lsattr -p ci/out.o");
	printf("%5u ci/out.o\n", project_of(MNT "/ci/out.o"));
	if (project_of(MNT "/ci/out.o") != 200) {
		printf("!! expected the copy in project 200\n");
		surprises++;
	}
	report(100);
	report(200);

	cmd("umount " MNT);
	outcome(umount(MNT) ? errno : 0, 0, "umount");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	banner();
	tmpfs_project_quota();
	printf("\n%s\n", surprises ? "demo: the kernel did not answer as expected" :
	       "demo: every scene behaved as the series says");
	return surprises ? 1 : 0;
}
