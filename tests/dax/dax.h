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
 * Whether this boot was given legacy persistent memory: a kernel parameter
 * "memmap=" whose ranges include one of type 12, SIZE!ADDR or SIZE%OFFSET+12
 * (arch/x86/kernel/e820.c; scripts/boot, tests/boots flag pmem). Such a
 * boot must have the pmem devices; a missing one is a failure (a kernel
 * whose pmem driver cannot enable the namespace), not a skip.
 */
static inline bool boot_has_pmem(void)
{
	char cmdline[4096], *tok, *save;

	if (guest_read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		return false;
	for (tok = strtok_r(cmdline, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (!strcmp(tok, "--"))		/* init's arguments follow */
			break;
		if (strncmp(tok, "memmap=", 7))
			continue;
		if (strchr(tok, '!') || (strchr(tok, '%') && strstr(tok, "+12")))
			return true;
	}
	return false;
}

/*
 * Wait until the nvdimm buses have probed what they hold: namespaces are
 * probed asynchronously (nd_async_domain), and nothing before init waits
 * for them. Reading ndbusN/wait_probe flushes the probes, as ndctl does.
 */
static inline void pmem_wait_probe(void)
{
	DIR *dp = opendir("/sys/bus/nd/devices");
	char path[300], val[16];
	struct dirent *d;

	while (dp && (d = readdir(dp))) {
		if (strncmp(d->d_name, "ndbus", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/nd/devices/%.64s/wait_probe",
			 d->d_name);
		guest_read_file(path, val, sizeof(val));
	}
	if (dp)
		closedir(dp);
}

/*
 * For a failure message: the pmem block devices, and the namespaces no
 * driver is bound to, into @buf.
 */
static inline void pmem_describe(char *buf, size_t size)
{
	char path[300];
	struct dirent *d;
	size_t len = 0;
	DIR *dp;

	buf[0] = '\0';
	dp = opendir("/sys/block");
	while (dp && (d = readdir(dp)) && len < size) {
		if (!strncmp(d->d_name, "pmem", 4))
			len += snprintf(buf + len, size - len, "%s%.64s",
					len ? ", " : "", d->d_name);
	}
	if (dp)
		closedir(dp);
	dp = opendir("/sys/bus/nd/devices");
	while (dp && (d = readdir(dp)) && len < size) {
		if (strncmp(d->d_name, "namespace", 9))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/nd/devices/%.64s/driver",
			 d->d_name);
		if (access(path, F_OK))
			len += snprintf(buf + len, size - len, "%sunbound %.64s",
					len ? ", " : "", d->d_name);
	}
	if (dp)
		closedir(dp);
	if (!buf[0])
		snprintf(buf, size, "no pmem device, no namespace");
}

/*
 * The physical range [*start, *end) of the namespace under the block
 * device @dev ("/dev/pmemN"); 0 or -1.
 */
static inline int pmem_range(const char *dev, unsigned long long *start,
			     unsigned long long *end)
{
	char path[128], val[64];
	unsigned long long size;

	snprintf(path, sizeof(path), "/sys/block/%.32s/device/resource", dev + 5);
	if (guest_read_file(path, val, sizeof(val)) || sscanf(val, "%llx", start) != 1)
		return -1;
	snprintf(path, sizeof(path), "/sys/block/%.32s/device/size", dev + 5);
	if (guest_read_file(path, val, sizeof(val)) || sscanf(val, "%llu", &size) != 1)
		return -1;
	*end = *start + size;
	return 0;
}

/*
 * The physical address of the page mapped at @addr in this process
 * (/proc/self/pagemap, root only), or 0 if it is not present.
 */
static inline unsigned long long phys_of(const void *addr, long page_size)
{
	unsigned long long e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	off_t at = (off_t)((uintptr_t)addr / page_size) * sizeof(e);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), at) != sizeof(e))
		e = 0;
	close(fd);
	if (!(e >> 63))					/* not present */
		return 0;
	return (e & ((1ULL << 55) - 1)) * page_size;	/* bits 0-54: PFN */
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
