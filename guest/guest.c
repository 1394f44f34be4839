// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the guest test programs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

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
