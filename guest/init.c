// SPDX-License-Identifier: GPL-2.0
/*
 * init for the test guests: PID 1 of every boot, statically linked.
 *
 * It mounts proc, sysfs, devtmpfs, debugfs and a tmpfs on /tmp, prints a
 * banner, loads the modules /etc/harness-modules names (one per line, from
 * /lib/modules: the test builds' LKDTM and KUnit modules), mounts the
 * filesystems and runs the suites the kernel command line names, relaying
 * each line they print to the console, and powers the machine off. Before
 * that it unmounts what it mounted on /mnt, asks kmemleak for a scan and
 * copies any report into the kernel log, where the host's verdict finds it.
 *
 * The command line it reads and the console lines it writes are the
 * harness's protocol, described in protocol.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "guest.h"
#include "protocol.h"

#define CMDLINE_MAX	4096
#define LINE_MAX_LEN	65536

#define MOUNTS_MAX	16

static char mounted[MOUNTS_MAX][300];
static int nr_mounted;
static const char *chroot_dir;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Console lines go into the kernel log through /dev/kmsg once it is open:
 * the serial driver prints a printk record in one piece, but interleaves
 * what user space writes to the console with printk records at any byte,
 * so that a kernel line printed while a suite's line was on its way could
 * land in the middle of it and be lost to the verdict. Before that, and if
 * /dev/kmsg cannot be used, they go to stdout with a timestamp of their own
 * in the printk format.
 */
static int kmsg_fd = -1;

/* devkmsg_write() refuses records over 1024 bytes, "<5>" included */
#define KMSG_TEXT_MAX	1000

/* One line: @prefix then @text, as kernel log records of bounded size. */
static void put_line(const char *prefix, const char *text)
{
	int pl = strnlen(prefix, KMSG_TEXT_MAX / 4), n, len;
	size_t left = strlen(text);
	char rec[KMSG_TEXT_MAX + 8];
	struct timespec ts;

	while (kmsg_fd >= 0) {
		n = left < (size_t)(KMSG_TEXT_MAX - pl) ? (int)left :
						       KMSG_TEXT_MAX - pl;
		len = snprintf(rec, sizeof(rec), "<5>%.*s%.*s", pl, prefix,
			       n, text);
		if (write(kmsg_fd, rec, len) != len)
			break;
		text += n;
		left -= n;
		if (!left)
			return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("[%5ld.%06ld] %s%s\n", (long)ts.tv_sec, ts.tv_nsec / 1000,
	       prefix, text);
	fflush(stdout);
}

static void say(const char *fmt, ...)
{
	static char line[LINE_MAX_LEN + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	put_line("", line);
}

static void kmsg_setup(void)
{
	char val[16] = "";
	int fd;

	/*
	 * The default, "ratelimit", drops all but 10 lines in 5 s; the write
	 * fails if printk.devkmsg= on the command line locked the setting.
	 */
	fd = open("/proc/sys/kernel/printk_devkmsg", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "on", 2) < 0 && errno != EINVAL)
			say(HARNESS_MARKER " printk_devkmsg: %s", strerror(errno));
		if (pread(fd, val, sizeof(val) - 1, 0) < 0)
			val[0] = '\0';
		close(fd);
	}
	if (strncmp(val, "on", 2))
		return;
	kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
}

static void do_mount(const char *src, const char *dst, const char *type,
		     unsigned long flags, const char *data)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, flags, data) && errno != EBUSY)
		say(HARNESS_MARKER " mount %s on %s failed: %s", type ? type : src,
		    dst, strerror(errno));
}

/* Value of HARNESS_PARAM KEY= on the kernel command line, or NULL. */
static char *param(const char *key)
{
	static char val[CMDLINE_MAX];

	return guest_param(key, val, sizeof(val)) ? NULL : val;
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void banner(void)
{
	char line[1024], release[256];
	FILE *f;

	read_file("/proc/sys/kernel/osrelease", release, sizeof(release));
	snprintf(line, sizeof(line), "Linux %s", release);
	say(HARNESS_FMT_BANNER, line);
	f = fopen("/etc/harness-banner", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		say(HARNESS_FMT_BANNER, line);
	}
	fclose(f);
}

static int setup_chroot(const char *serial)
{
	static const char * const binds[] = { "proc", "sys", "dev", "tmp", "mnt" };
	char dev[300], dst[128];
	size_t i;

	if (guest_find_disk(serial, dev, sizeof(dev))) {
		say(HARNESS_MARKER " no disk with serial %s", serial);
		return -1;
	}
	mkdir("/debian", 0755);
	if (mount(dev, "/debian", "ext4", 0, NULL)) {
		say(HARNESS_MARKER " mount %s on /debian: %s", dev, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		snprintf(dst, sizeof(dst), "/debian/%s", binds[i]);
		snprintf(dev, sizeof(dev), "/%s", binds[i]);
		do_mount(dev, dst, NULL, MS_BIND | MS_REC, NULL);
	}
	do_mount("/tests", "/debian/harness", NULL, MS_BIND, NULL);
	chroot_dir = "/debian";
	say(HARNESS_MARKER " running suites chrooted into %s (%s)", chroot_dir,
	    serial);
	return 0;
}

/* Relay the suite's output line by line, with timestamp and suite prefix. */
static void relay(const char *name, char *buf, size_t *len, int flush)
{
	char *start = buf, *nl, prefix[128];

	snprintf(prefix, sizeof(prefix), "%s" HARNESS_RELAY_SEP, name);
	while ((nl = memchr(start, '\n', *len - (start - buf)))) {
		*nl = '\0';
		if (nl > start && nl[-1] == '\r')
			nl[-1] = '\0';
		put_line(prefix, start);
		start = nl + 1;
	}
	*len -= start - buf;
	memmove(buf, start, *len);
	if (*len && (flush || *len == LINE_MAX_LEN)) {
		buf[*len] = '\0';
		put_line(prefix, buf);
		*len = 0;
	}
}

/* Mount each NAME:TYPE:OPTS of @list on /mnt/NAME; return the failures. */
static int setup_mounts(char *list)
{
	char *m, *save, *type, *opts, *p, dev[300], dir[300];
	int failed = 0;

	mkdir("/mnt", 0755);
	for (m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		type = strchr(m, ':');
		if (!type) {
			say(HARNESS_MARKER " bad mount %s (want NAME:TYPE:OPTS)", m);
			failed++;
			continue;
		}
		*type++ = '\0';
		opts = strchrnul(type, ':');
		if (*opts)
			*opts++ = '\0';
		for (p = opts; (p = strchr(p, '+')); )
			*p = ',';
		if (!strcmp(type, "tmpfs"))
			snprintf(dev, sizeof(dev), "tmpfs");
		else if (guest_find_disk(m, dev, sizeof(dev))) {
			say(HARNESS_MARKER " no disk with serial %s", m);
			failed++;
			continue;
		}
		snprintf(dir, sizeof(dir), "/mnt/%s", m);
		mkdir(dir, 0755);
		if (mount(dev, dir, type, 0, *opts ? opts : NULL)) {
			say(HARNESS_MARKER " mount %s (%s, %s) on %s: %s", dev, type, opts,
			    dir, strerror(errno));
			failed++;
			continue;
		}
		say(HARNESS_MARKER " mounted %s (%s, %s) on %s", dev, type, opts, dir);
		if (nr_mounted < MOUNTS_MAX)
			strcpy(mounted[nr_mounted++], dir);
	}
	return failed;
}

static int run_suite(const char *name, int timeout)
{
	static char buf[LINE_MAX_LEN + 1];
	char path[256], arg[300] = "", code[16];
	const char *at = strchr(name, HARNESS_AT);
	double start = now(), deadline = start + timeout;
	int pipefd[2], status, timed_out = 0;
	size_t len = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%.*s", chroot_dir ? "/harness" : "/tests",
		 at ? (int)(at - name) : (int)strlen(name), name);
	if (at)
		snprintf(arg, sizeof(arg), "/mnt/%s", at + 1);
	say(HARNESS_FMT_SUITE_BEGIN, name);
	if (pipe2(pipefd, O_CLOEXEC)) {
		say(HARNESS_FMT_SUITE_END, name, "pipe", 0.0);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		setsid();
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		if (chroot_dir && (chroot(chroot_dir) || chdir("/")))
			_exit(126);
		if (!chroot_dir && chdir("/tmp"))
			_exit(126);
		execl(path, path, at ? arg : (char *)NULL, (char *)NULL);
		fprintf(stderr, HARNESS_MARKER " exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		int left = (int)((deadline - now()) * 1000);
		ssize_t n;

		if (left <= 0) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(pipefd[0], buf + len, LINE_MAX_LEN - len);
		if (n <= 0)
			break;
		len += n;
		relay(name, buf, &len, 0);
	}
	relay(name, buf, &len, 1);
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	/* Reap what the suite left behind in its session. */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;

	if (timed_out) {
		say(HARNESS_FMT_SUITE_END, name, "timeout", now() - start);
		return 1;
	}
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	snprintf(code, sizeof(code), "%d", status);
	say(HARNESS_FMT_SUITE_END, name, code, now() - start);
	return status != 0;
}

/* Unmount what setup_mounts() mounted, so that unmount paths run too. */
/* Load every module /etc/harness-modules names; returns how many failed. */
static int load_modules(void)
{
	char list[4096], *name, *save, path[PATH_MAX];
	int failed = 0, fd;
	ssize_t n = 0;

	/* every line: read_file() keeps the first only */
	fd = open("/etc/harness-modules", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, list, sizeof(list) - 1);
		close(fd);
	}
	list[n > 0 ? n : 0] = '\0';
	for (name = strtok_r(list, "\n", &save); name;
	     name = strtok_r(NULL, "\n", &save)) {
		int fd, ret = -1;

		snprintf(path, sizeof(path), "/lib/modules/%s.ko", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ret = syscall(SYS_finit_module, fd, "", 0);
			close(fd);
		}
		if (ret) {
			say(HARNESS_FMT_MODULE_FAIL, name, strerror(errno));
			failed++;
		} else {
			say(HARNESS_FMT_MODULE_OK, name);
		}
	}
	return failed;
}

static int unmount_all(void)
{
	int failed = 0;

	while (nr_mounted--) {
		if (umount(mounted[nr_mounted])) {
			say(HARNESS_MARKER " umount %s: %s", mounted[nr_mounted],
			    strerror(errno));
			failed++;
		}
	}
	return failed;
}

/* Scan for leaks and copy the report into the kernel log. */
static void kmemleak_scan(void)
{
	const char *path = "/sys/kernel/debug/kmemleak";
	char line[1024];
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "scan", 4) < 0)
		say(HARNESS_MARKER " kmemleak scan: %s", strerror(errno));
	close(fd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		put_line("", line);
	}
	if (f)
		fclose(f);
}

int main(void)
{
	char *suites, *name, *save, *val;
	int timeout = 300, failed = 0, ready = 1;

	do_mount("proc", "/proc", "proc", 0, NULL);
	do_mount("sysfs", "/sys", "sysfs", 0, NULL);
	do_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	do_mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	do_mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	kmsg_setup();
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("TERM", "dumb", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);

	banner();
	val = param("timeout");
	if (val)
		timeout = atoi(val);
	failed += load_modules();
	val = param("mounts");
	if (val && setup_mounts(val)) {
		failed++;
		ready = 0;
	}
	val = param("chroot");
	if (val && setup_chroot(val)) {
		failed++;
		ready = 0;
	}

	suites = param("suites");
	if (suites)
		suites = strdup(suites);
	for (name = suites ? strtok_r(suites, ",", &save) : NULL; name && ready;
	     name = strtok_r(NULL, ",", &save))
		failed += run_suite(name, timeout);
	free(suites);

	val = param("shell");
	if (val && !strcmp(val, "1")) {
		pid_t pid = fork();

		if (pid == 0) {
			setsid();
			ioctl(0, TIOCSCTTY, 1);
			execl("/bin/sh", "sh", "-c",
			      "/bin/busybox --install -s /bin; exec /bin/sh -i",
			      (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	}

	if (!chroot_dir)
		failed += unmount_all();
	kmemleak_scan();
	say(HARNESS_FMT_END, failed);
	sync();
	val = param("halt");
	reboot(val && !strcmp(val, "1") ? RB_HALT_SYSTEM : RB_AUTOBOOT);
	return 0;
}
