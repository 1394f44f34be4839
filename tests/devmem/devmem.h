/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For tests/devmem/devmem.c: /proc/iomem as a list, the spare virtio device
 * whose driver the test unbinds and binds, and one load through a mapping
 * done in a child, so that a SIGBUS ends the child and not the test.
 *
 * The spare device is a virtio-rng (device type 4) that no driver in the
 * test kernels drives beyond its transport: on x86_64 a virtio-pci
 * function (QEMU -device virtio-rng-pci), on riscv64 and arm a virtio-mmio
 * transport (-device virtio-rng-device). Binding the transport's driver
 * (virtio-pci, virtio-mmio) claims its register window: pci_request_
 * selected_regions() for the BAR of the virtio common configuration,
 * devm_platform_ioremap_resource() for the transport. The test boots
 * attach it (tests/boots flag spare-virtio).
 */
#ifndef DEVMEM_H
#define DEVMEM_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "guest.h"

#define VIRTIO_ID_RNG		4
#define VIRTIO_MMIO_MAGIC	0x74726976U	/* "virt" */
#define IOMEM_MAX		512

/* One line of /proc/iomem: "start-end : name", indented 2 per level. */
struct iomem_entry {
	unsigned long long start, end;
	int depth;
	char name[96];
};

/* Reads /proc/iomem into @e; returns the number of entries, or -1. */
static inline int iomem_read(struct iomem_entry *e, int max)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		int indent = strspn(line, " "), pos = 0;

		if (sscanf(line + indent, "%llx-%llx : %n", &e[n].start,
			   &e[n].end, &pos) < 2 || !pos)
			continue;
		e[n].depth = indent / 2;
		snprintf(e[n].name, sizeof(e[n].name), "%s", line + indent + pos);
		e[n].name[strcspn(e[n].name, "\n")] = '\0';
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Is the range that starts at @start claimed by a driver? A PCI BAR is in
 * /proc/iomem from enumeration on: a driver's pci_request_region() nests a
 * busy entry right below it (@nested). A device tree platform device's
 * "reg" is not (of_platform_device_create_pdata() adds the device without
 * inserting its resources): the entry appears when the driver's
 * devm_request_mem_region() inserts it and goes when the driver unbinds.
 */
static inline int iomem_claimed(unsigned long long start, bool nested)
{
	static struct iomem_entry e[IOMEM_MAX];
	int n = iomem_read(e, IOMEM_MAX), i, best = -1;

	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (e[i].start == start && (best < 0 || e[i].depth < e[best].depth))
			best = i;
	if (!nested)
		return best >= 0;
	if (best < 0)
		return -1;
	return best + 1 < n && e[best + 1].depth > e[best].depth &&
	       e[best + 1].start <= start && start <= e[best + 1].end;
}

/* Length of the shallowest /proc/iomem entry starting at @start, or 0. */
static inline unsigned long long iomem_len(unsigned long long start)
{
	static struct iomem_entry e[IOMEM_MAX];
	int n = iomem_read(e, IOMEM_MAX), i, best = -1;

	for (i = 0; i < n; i++)
		if (e[i].start == start && (best < 0 || e[i].depth < e[best].depth))
			best = i;
	return best < 0 ? 0 : e[best].end - e[best].start + 1;
}

/* The spare virtio device: where it is, and which register to load. */
struct spare {
	bool pci;
	char name[256];			/* 0000:00:04.0, 10008000.virtio_mmio */
	const char *devices;		/* /sys/bus/.../devices */
	const char *driver;		/* /sys/bus/.../drivers/NAME */
	unsigned long long win;		/* the window the driver claims */
	unsigned long long reg;		/* a register in it */
	int width;			/* of that register, bytes */
};

static inline unsigned long long sysfs_ull(const char *dir, const char *name,
					   const char *attr)
{
	char path[1024], buf[64];

	snprintf(path, sizeof(path), "%.400s/%.255s/%.64s", dir, name, attr);
	if (guest_read_file(path, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

static inline bool spare_bound(const struct spare *s)
{
	char path[1024];

	snprintf(path, sizeof(path), "%.400s/%.255s/driver", s->devices, s->name);
	return !access(path, F_OK);
}

static inline int spare_bind(const struct spare *s, bool bind)
{
	char path[1024];

	if (spare_bound(s) == bind)
		return 0;
	snprintf(path, sizeof(path), "%.400s/%s", s->driver, bind ? "bind" : "unbind");
	return guest_write_file(path, s->name);
}

/*
 * PCI: the virtio-rng function (vendor 0x1af4, device 0x1005 transitional
 * or 0x1044 modern); its window is the BAR holding the virtio common
 * configuration (the vendor capability with cfg_type 1 in config space),
 * the register num_queues in it (offset 18, 16 bits).
 */
static inline int spare_find_pci(struct spare *s)
{
	const char *dir = "/sys/bus/pci/devices";
	unsigned char cfg[256];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int found = -1;

	if (!dp)
		return -1;
	while (found && (d = readdir(dp))) {
		unsigned long long dev = sysfs_ull(dir, d->d_name, "device");
		char path[1024], line[128];
		int fd, pos, i, bar = -1;
		unsigned int off = 0;
		FILE *f;

		if (d->d_name[0] == '.' ||
		    sysfs_ull(dir, d->d_name, "vendor") != 0x1af4 ||
		    (dev != 0x1005 && dev != 0x1044))
			continue;
		snprintf(path, sizeof(path), "%s/%.255s/config", dir, d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, cfg, sizeof(cfg)) != sizeof(cfg)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		for (pos = cfg[0x34] & ~3, i = 0; pos && i < 48;
		     pos = cfg[pos + 1] & ~3, i++) {
			if (pos > 240)
				break;
			if (cfg[pos] == 0x09 && cfg[pos + 3] == 1) {
				bar = cfg[pos + 4];
				off = cfg[pos + 8] | cfg[pos + 9] << 8 |
				      cfg[pos + 10] << 16 | (unsigned int)cfg[pos + 11] << 24;
				break;
			}
		}
		if (bar < 0 || bar > 5)
			continue;
		snprintf(path, sizeof(path), "%s/%.255s/resource", dir, d->d_name);
		f = fopen(path, "re");
		for (i = 0; f && fgets(line, sizeof(line), f); i++)
			if (i == bar)
				s->win = strtoull(line, NULL, 0);
		if (f)
			fclose(f);
		if (!s->win)
			continue;
		s->pci = true;
		snprintf(s->name, sizeof(s->name), "%.255s", d->d_name);
		s->devices = dir;
		s->driver = "/sys/bus/pci/drivers/virtio-pci";
		s->reg = s->win + off + 18;
		s->width = 2;
		found = 0;
	}
	closedir(dp);
	return found;
}

/* Has the platform device @name a virtio child of type @id? */
static inline bool mmio_has_virtio(const char *name, unsigned int id)
{
	char path[512];
	struct dirent *d;
	DIR *dp;
	bool found = false;

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/%.255s", name);
	dp = opendir(path);
	while (dp && !found && (d = readdir(dp)))
		if (!strncmp(d->d_name, "virtio", 6) &&
		    sysfs_ull(path, d->d_name, "device") == id)
			found = true;
	if (dp)
		closedir(dp);
	return found;
}

static inline bool is_virtio_mmio(const char *name)
{
	const char *dot = strstr(name, ".virtio_mmio");

	return dot && !dot[strlen(".virtio_mmio")];
}

/* The virtio-mmio transport that carries the rng, into @s->name. */
static inline int mmio_find_rng(struct spare *s)
{
	DIR *dp = opendir(s->devices);
	struct dirent *d;
	int found = -1;

	while (dp && found && (d = readdir(dp)))
		if (is_virtio_mmio(d->d_name) &&
		    mmio_has_virtio(d->d_name, VIRTIO_ID_RNG)) {
			snprintf(s->name, sizeof(s->name), "%.255s", d->d_name);
			found = 0;
		}
	if (dp)
		closedir(dp);
	return found;
}

/*
 * virtio-mmio: the transport whose virtio device is the rng. Its virtio
 * device exists only while the transport is bound, so if none is found
 * (an earlier test failed between unbind and bind) every unbound
 * transport is bound first: one without a device fails its probe and
 * stays unbound. The window is the transport (the device name is its
 * physical address), the register its magic value.
 */
static inline int spare_find_mmio(struct spare *s)
{
	struct dirent *d;
	DIR *dp;

	s->devices = "/sys/bus/platform/devices";
	s->driver = "/sys/bus/platform/drivers/virtio-mmio";
	if (mmio_find_rng(s)) {
		dp = opendir(s->devices);
		while (dp && (d = readdir(dp)))
			if (is_virtio_mmio(d->d_name)) {
				snprintf(s->name, sizeof(s->name), "%.255s", d->d_name);
				spare_bind(s, true);
			}
		if (dp)
			closedir(dp);
		if (mmio_find_rng(s))
			return -1;
	}
	s->pci = false;
	s->win = strtoull(s->name, NULL, 16);
	s->reg = s->win;
	s->width = 4;
	return 0;
}

static inline int spare_find(struct spare *s)
{
	memset(s, 0, sizeof(*s));
	return spare_find_pci(s) && spare_find_mmio(s) ? -1 : 0;
}

/* The result of one load through a mapping, done in a child. */
struct probe {
	int sig;		/* the signal that ended the child, or 0 */
	uint32_t val;
};

/*
 * Load the @width-byte register at @addr (inside the mapping @map of the
 * page @page) in a child: a revoked mapping kills it with SIGBUS.
 */
static inline struct probe probe_load(volatile void *map, unsigned long long page,
				      unsigned long long addr, int width)
{
	struct probe r = { .sig = -1 };
	uint32_t *val = mmap(NULL, sizeof(*val), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	volatile char *p = (volatile char *)map + (addr - page);
	int status;
	pid_t pid;

	if (val == MAP_FAILED)
		return r;
	pid = fork();
	if (pid == 0) {
		signal(SIGBUS, SIG_DFL);
		*val = width == 1 ? *(volatile uint8_t *)p :
		       width == 2 ? *(volatile uint16_t *)p :
				    *(volatile uint32_t *)p;
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid) {
		r.sig = WIFSIGNALED(status) ? WTERMSIG(status) :
			WEXITSTATUS(status) ? -1 : 0;
		r.val = *val;
	}
	munmap(val, sizeof(*val));
	return r;
}

#endif
