/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For tests/dax/dax.c: the pmem device that holds a given filesystem, and
 * the fs_dax trace events (include/trace/events/fs_dax.h) read back from
 * tracefs.
 */
#ifndef DAX_H
#define DAX_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "guest.h"

#define TRACING		"/sys/kernel/tracing"

/*
 * The /dev/pmemN whose content is a filesystem of type @fstype ("ext4":
 * the magic 0xef53 at byte 1080; "xfs": "XFSB" at byte 0), into @dev.
 */
static inline int pmem_find(const char *fstype, char *dev, size_t size)
{
	DIR *dp = opendir("/sys/block");
	unsigned char sb[2048];
	struct dirent *d;
	int found = -1;

	while (dp && found && (d = readdir(dp))) {
		int fd;

		if (strncmp(d->d_name, "pmem", 4))
			continue;
		snprintf(dev, size, "/dev/%.32s", d->d_name);
		fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pread(fd, sb, sizeof(sb), 0) == sizeof(sb) &&
		    ((!strcmp(fstype, "ext4") && sb[1080] == 0x53 && sb[1081] == 0xef) ||
		     (!strcmp(fstype, "xfs") && !memcmp(sb, "XFSB", 4))))
			found = 0;
		close(fd);
	}
	if (dp)
		closedir(dp);
	return found;
}

/*
 * Whether this boot was given legacy persistent memory: a "memmap=SIZE!ADDR"
 * on the kernel command line (scripts/boot, tests/boots flag pmem). Such a
 * boot must have a /dev/pmem* for each range; a missing one is a failure
 * (a kernel whose pmem driver cannot enable the namespace), not a skip.
 */
static inline bool boot_has_pmem(void)
{
	char cmdline[4096], *p = cmdline;

	if (guest_read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		return false;
	while ((p = strstr(p, "memmap="))) {
		size_t len = strcspn(p, " \n");

		if (memchr(p, '!', len))
			return true;
		p += len;
	}
	return false;
}

/* tracefs on /sys/kernel/tracing (init mounts debugfs only). */
static inline int tracing_mount(void)
{
	if (!access(TRACING "/trace", F_OK))
		return 0;
	if (mount("tracefs", TRACING, "tracefs", 0, NULL) && errno != EBUSY)
		return -errno;
	return access(TRACING "/trace", F_OK) ? -errno : 0;
}

/* Turn the fs_dax event @event on or off; 0 or -errno. */
static inline int trace_event_enable(const char *event, bool on)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "/events/fs_dax/%s/enable", event);
	return guest_write_file(path, on ? "1" : "0");
}

/* Empty the trace buffers of every CPU. */
static inline int trace_clear(void)
{
	int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

#define WB_MAX	256

/* The writeback events of one inode, from the trace buffer. */
struct writeback {
	int ranges;			/* dax_writeback_range */
	unsigned long long range_start, range_end;	/* of the first one */
	int ones;			/* dax_writeback_one */
	unsigned long long pgoff[WB_MAX], pglen[WB_MAX];
	int others;			/* events of other inodes */
};

/*
 * Parse the trace for the events of the inode @ino on the device @maj:@min:
 *   dax_writeback_range: dev 259:0 ino 0xc pgoff 0x0-0xf
 *   dax_writeback_one: dev 259:0 ino 0xc pgoff 0x4 pglen 0x1
 */
static inline int trace_writeback(unsigned int maj, unsigned int min,
				  unsigned long long ino, struct writeback *wb)
{
	static char buf[256 * 1024];
	char *line, *save, *p;
	int err = guest_read_file(TRACING "/trace", buf, sizeof(buf));

	memset(wb, 0, sizeof(*wb));
	if (err)
		return err;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int ma, mi;
		unsigned long long i, a, b;

		if ((p = strstr(line, "dax_writeback_range: ")) &&
		    sscanf(p, "dax_writeback_range: dev %u:%u ino %llx pgoff %llx-%llx",
			   &ma, &mi, &i, &a, &b) == 5) {
			if (ma != maj || mi != min || i != ino) {
				wb->others++;
			} else if (!wb->ranges++) {
				wb->range_start = a;
				wb->range_end = b;
			}
		} else if ((p = strstr(line, "dax_writeback_one: ")) &&
			   sscanf(p, "dax_writeback_one: dev %u:%u ino %llx pgoff %llx pglen %llx",
				  &ma, &mi, &i, &a, &b) == 5) {
			if (ma != maj || mi != min || i != ino) {
				wb->others++;
			} else if (wb->ones < WB_MAX) {
				wb->pgoff[wb->ones] = a;
				wb->pglen[wb->ones++] = b;
			}
		}
	}
	return 0;
}


#endif
