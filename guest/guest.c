// SPDX-License-Identifier: GPL-2.0
/* The harness's services to the guest test programs: see guest.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

void guest_value(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf(HARNESS_VALUE "%s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int guest_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	size_t len = 0;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len))) {
		if (n < 0) {
			err = -errno;
			len = 0;
			break;
		}
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return err;
}

int guest_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

int guest_find_disk(const char *serial, char *dev, size_t size)
{
	char path[300], val[256];
	struct dirent *d;
	DIR *dir = opendir("/sys/block");
	int ret = -1;

	if (!dir)
		return -1;
	while (ret && (d = readdir(dir))) {
		if (strncmp(d->d_name, "vd", 2))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/serial", d->d_name);
		read_line(path, val, sizeof(val));
		if (!strcmp(val, serial)) {
			snprintf(dev, size, "/dev/%.32s", d->d_name);
			ret = 0;
		}
	}
	closedir(dir);
	return ret;
}

bool guest_mount_has_option(const char *dir, const char *option)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;
	bool found = false;

	if (!f)
		return false;
	while ((m = getmntent(f))) {
		/* The last mount on @dir is the one in effect. */
		if (!strcmp(m->mnt_dir, dir))
			found = hasmntopt(m, option) != NULL;
	}
	endmntent(f);
	return found;
}

bool guest_test_dir(int *argc, char ***argv, const char **dir,
		    const char *env)
{
	const char *val = env ? getenv(env) : NULL;

	if (*argc > 1 && (*argv)[1][0] != '-') {
		*dir = (*argv)[1];
		(*argv)[1] = (*argv)[0];
		(*argv)++;
		(*argc)--;
		return true;
	}
	if (val && *val) {
		*dir = val;
		return true;
	}
	return false;
}

int guest_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

void guest_kmsg_read(int fd, char *log, size_t size)
{
	size_t len = strlen(log);
	char rec[8192];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten records */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "PRIO,SEQ,...": facility 0 is the kernel's own records */
		if (strtol(rec, NULL, 10) >> 3)
			continue;
		if (len + n + 1 < size) {
			memcpy(log + len, rec, n + 1);
			len += n;
		}
	}
}

int guest_expect_splat(int fd, const char *what)
{
	char line[256];
	int len = snprintf(line, sizeof(line), HARNESS_FMT_EXPECT, what);

	if (len < 0 || (size_t)len >= sizeof(line))
		return -EINVAL;
	return write(fd, line, len) == len ? 0 : -errno;
}

int guest_param(const char *key, char *buf, size_t size)
{
	/* read once: init asks again after the suites, whatever they did */
	static char cmdline[4096];
	char pat[64], *p;
	size_t n;
	int ret;

	if (!cmdline[0]) {
		ret = guest_read_file("/proc/cmdline", cmdline, sizeof(cmdline));
		if (ret) {
			cmdline[0] = 0;
			return ret;
		}
	}
	ret = snprintf(pat, sizeof(pat), HARNESS_PARAM "%s=", key);
	if (ret < 0 || (size_t)ret >= sizeof(pat))
		return -EINVAL;
	for (p = cmdline; (p = strstr(p, pat)); p++) {
		/* a word of its own, not the tail of another parameter */
		if (p != cmdline && p[-1] != ' ')
			continue;
		p += strlen(pat);
		n = strcspn(p, " \n");
		if (n >= size)
			return -E2BIG;
		memcpy(buf, p, n);
		buf[n] = 0;
		return 0;
	}
	return -ENODATA;
}

bool guest_cmdline_has(const char *word)
{
	char cmdline[4096], *p;
	size_t len = strlen(word);

	if (guest_read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		return false;
	for (p = cmdline; (p = strstr(p, word)); p += len)
		if ((p == cmdline || p[-1] == ' ') &&
		    (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

bool guest_negative_control(const char *name)
{
	char val[4096], *p;
	size_t len = strlen(name);

	if (guest_param("negative", val, sizeof(val)))
		return false;
	for (p = val; *p; ) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}
