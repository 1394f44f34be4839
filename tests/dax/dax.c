// SPDX-License-Identifier: GPL-2.0
/*
 * DAX msync/fsync (Linux 4.5): on a filesystem mounted -o dax=always on
 * persistent memory, a shared mapping of a file maps the medium itself;
 * the kernel tags the page-table entries of written pages dirty (in the
 * file's i_pages), and msync()/fsync() write back exactly those, flushing
 * the CPU cache for each (fs/dax.c dax_writeback_mapping_range(),
 * dax_writeback_one()), then write-protect them, so that the next store
 * dirties the page again.
 *
 *   dax@ext4    the pmem device holding an ext4 image, mounted on
 *               /mnt/pmem-ext4; /mnt/ext4 (the virtio disk of tests/boots
 *               flag "disks") is the same filesystem without DAX
 *   dax@xfs     the same with XFS
 *
 * The pmem devices (x86_64: legacy e820 persistent memory, memmap=SIZE!ADDR
 * on the kernel command line, filled by QEMU's generic loader with images
 * the host formatted: tests/boots flag "pmem") are found by the
 * filesystem they hold. The writeback is seen through the fs_dax trace
 * events (CONFIG_FTRACE): dax_writeback_range for each writeback call,
 * dax_writeback_one for each entry written back (pglen 1: the mapping is
 * 64 KiB, too small for a PMD entry).
 *
 * The mapping's page frames (/proc/self/pagemap) lie in the namespace's
 * physical range: the stores go to the medium, not to the page cache.
 *
 * Negative controls (harness.negative=): dax-never mounts the filesystem
 * dax=never instead; every test must then fail but two: the data reaches
 * the medium through the page cache's writeback too, and the non-DAX
 * MAP_SYNC test does not use the pmem mount. dax-no-pmem looks for no pmem
 * device: every test must fail, as in a boot whose pmem driver bound no
 * namespace (the boot has memmap= ranges, so a missing device is a failure).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "dax.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC		0x80000
#endif
#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX		0x00200000
#endif

#define NPAGES	16

/* the filesystem type, from the suite's argument (dax@ext4: /mnt/ext4) */
static const char *fstype = "ext4";
/* the same filesystem on a disk without DAX, if the boot has it */
static const char *plain_dir = "/mnt/ext4";

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

FIXTURE(dax) {
	char dev[64], mnt[64], path[96];
	int fd;
	char *map;
	unsigned int maj, min;
	unsigned long long ino;
};

/* Page @i's byte @off, as written by the set-up (generation 0) or a store. */
static char pattern(int i, int gen)
{
	return 'A' + (i + 7 * gen) % 26;
}

FIXTURE_SETUP(dax)
{
	const char *opts = guest_negative_control("dax-never") ? "dax=never" : "dax=always";
	long ps = page_size();
	char *buf;
	struct stat st;
	int i;

	self->fd = -1;
	self->map = MAP_FAILED;
	self->mnt[0] = '\0';
	pmem_wait_probe();
	if (guest_negative_control("dax-no-pmem") ||
	    pmem_find(fstype, self->dev, sizeof(self->dev))) {
		char seen[256];

		/*
		 * 6.12's pmem driver enables a namespace only with
		 * CONFIG_ND_CLAIM (selected by BTT or NVDIMM_PFN); without
		 * it every probe fails with -ENXIO and prints nothing.
		 */
		pmem_describe(seen, sizeof(seen));
		ASSERT_FALSE(boot_has_pmem())
			TH_LOG("memmap= gives pmem, but no /dev/pmem* holds %s (seen: %s; an unbound namespace is one the pmem driver could not enable, e.g. without CONFIG_ND_CLAIM)",
			       fstype, seen);
		SKIP(return, "no /dev/pmem* holding %s: the boot needs tests/boots flag pmem (x86_64)",
		     fstype);
	}
	snprintf(self->mnt, sizeof(self->mnt), "/mnt/pmem-%s", fstype);
	mkdir("/mnt", 0755);
	mkdir(self->mnt, 0755);
	/* a test that failed an assertion may have left it mounted */
	umount2(self->mnt, MNT_DETACH);
	ASSERT_EQ(0, mount(self->dev, self->mnt, fstype, 0, opts))
		TH_LOG("mount %s (%s, %s) on %s: %s", self->dev, fstype, opts,
		       self->mnt, strerror(errno));

	/* NPAGES pages of data, on the medium before the mapping exists */
	snprintf(self->path, sizeof(self->path), "%s/f", self->mnt);
	self->fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create %s: %s", self->path, strerror(errno));
	buf = malloc(ps);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < NPAGES; i++) {
		memset(buf, pattern(i, 0), ps);
		ASSERT_EQ(ps, pwrite(self->fd, buf, ps, (off_t)i * ps));
	}
	free(buf);
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, fstat(self->fd, &st));
	self->maj = major(st.st_dev);
	self->min = minor(st.st_dev);
	self->ino = st.st_ino;
	self->map = mmap(NULL, NPAGES * ps, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map) TH_LOG("mmap: %s", strerror(errno));

	ASSERT_EQ(0, tracing_mount()) TH_LOG("tracefs on " TRACING ": %s", strerror(errno));
	ASSERT_EQ(0, trace_event_enable("dax_writeback_range", true))
		TH_LOG("no fs_dax trace events (CONFIG_FS_DAX, CONFIG_FTRACE)");
	ASSERT_EQ(0, trace_event_enable("dax_writeback_one", true));
	ASSERT_EQ(0, trace_clear());
}

FIXTURE_TEARDOWN(dax)
{
	trace_event_enable("dax_writeback_range", false);
	trace_event_enable("dax_writeback_one", false);
	if (self->map != MAP_FAILED)
		munmap(self->map, NPAGES * page_size());
	if (self->fd >= 0)
		close(self->fd);
	if (self->mnt[0] && umount(self->mnt)) {
		TH_LOG("umount %s: %s", self->mnt, strerror(errno));
		umount2(self->mnt, MNT_DETACH);
	}
}

/* One store into each page of @pages (@n of them), generation @gen. */
static void store(FIXTURE_DATA(dax) *self, const int *pages, int n, int gen)
{
	long ps = page_size();
	int i;

	for (i = 0; i < n; i++)
		memset(self->map + pages[i] * ps, pattern(pages[i], gen), ps);
}

/* The trace holds one dax_writeback_one of pglen 1 for each of @pages, no more. */
static void expect_written_back(struct __test_metadata *_metadata,
				FIXTURE_DATA(dax) *self, const int *pages, int n)
{
	struct writeback wb;
	int i, j;

	ASSERT_EQ(0, trace_writeback(self->maj, self->min, self->ino, &wb));
	EXPECT_EQ(n, wb.ones) TH_LOG("%d pages written back, %d dirtied", wb.ones, n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < wb.ones; j++)
			if (wb.pgoff[j] == (unsigned long long)pages[i])
				break;
		EXPECT_LT(j, wb.ones) TH_LOG("page %d was dirtied but not written back",
					    pages[i]);
		if (j < wb.ones)
			EXPECT_EQ(1ULL, wb.pglen[j]);
	}
	for (j = 0; j < wb.ones; j++) {
		for (i = 0; i < n; i++)
			if (wb.pgoff[j] == (unsigned long long)pages[i])
				break;
		EXPECT_LT(i, n) TH_LOG("page %llu was written back but not dirtied",
				       wb.pgoff[j]);
	}
	if (n) {
		EXPECT_LE(1, wb.ranges) TH_LOG("no dax_writeback_range for the inode");
		EXPECT_EQ(0ULL, wb.range_start);
		EXPECT_LE((unsigned long long)NPAGES - 1, wb.range_end);
	}
}

TEST_F_TIMEOUT(dax, mount_is_dax_always, 120)
{
	EXPECT_TRUE(guest_mount_has_option(self->mnt, "dax=always"))
		TH_LOG("%s is not mounted dax=always", self->mnt);
}

TEST_F_TIMEOUT(dax, files_have_statx_attr_dax, 120)
{
	struct statx stx;

	ASSERT_EQ(0, statx(AT_FDCWD, self->path, 0, STATX_BASIC_STATS, &stx));
	EXPECT_TRUE(!!(stx.stx_attributes & STATX_ATTR_DAX))
		TH_LOG("%s is not a DAX file", self->path);
}

/* Reads fault the pages in too, but only stores dirty them. */
TEST_F_TIMEOUT(dax, msync_writes_back_exactly_the_dirtied_pages, 120)
{
	static const int dirty[] = { 1, 4, 5, 9 };
	volatile char sum = 0;
	int i;

	for (i = 0; i < NPAGES; i++)
		sum += self->map[i * page_size()];
	store(self, dirty, 4, 1);
	ASSERT_EQ(0, msync(self->map, NPAGES * page_size(), MS_SYNC));
	expect_written_back(_metadata, self, dirty, 4);
}

TEST_F_TIMEOUT(dax, second_msync_without_stores_writes_back_nothing, 120)
{
	static const int dirty[] = { 2, 3 };

	store(self, dirty, 2, 1);
	ASSERT_EQ(0, msync(self->map, NPAGES * page_size(), MS_SYNC));
	expect_written_back(_metadata, self, dirty, 2);
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, msync(self->map, NPAGES * page_size(), MS_SYNC));
	expect_written_back(_metadata, self, NULL, 0);
}

TEST_F_TIMEOUT(dax, fsync_writes_back_exactly_the_dirtied_pages, 120)
{
	static const int dirty[] = { 0, 7, 15 };

	store(self, dirty, 3, 1);
	ASSERT_EQ(0, fsync(self->fd));
	expect_written_back(_metadata, self, dirty, 3);
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, fsync(self->fd));
	expect_written_back(_metadata, self, NULL, 0);
}

/* Writeback write-protects the pages: the next store dirties one again. */
TEST_F_TIMEOUT(dax, a_store_after_writeback_dirties_the_page_again, 120)
{
	static const int dirty[] = { 4, 6, 8 }, again[] = { 6 };

	store(self, dirty, 3, 1);
	ASSERT_EQ(0, msync(self->map, NPAGES * page_size(), MS_SYNC));
	ASSERT_EQ(0, trace_clear());
	store(self, again, 1, 2);
	ASSERT_EQ(0, msync(self->map, NPAGES * page_size(), MS_SYNC));
	expect_written_back(_metadata, self, again, 1);
}

/* Where page @i of the file is on the device, in bytes; -1 if unknown. */
static long long physical(int fd, int i)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[8];
	} f;
	unsigned long long off = (unsigned long long)i * page_size();
	unsigned int e;

	memset(&f, 0, sizeof(f));
	f.fm.fm_start = off;
	f.fm.fm_length = page_size();
	f.fm.fm_extent_count = 8;
	if (ioctl(fd, FS_IOC_FIEMAP, &f.fm))
		return -1;
	for (e = 0; e < f.fm.fm_mapped_extents; e++) {
		struct fiemap_extent *x = &f.fm.fm_extents[e];

		if (off >= x->fe_logical && off < x->fe_logical + x->fe_length)
			return x->fe_physical + (off - x->fe_logical);
	}
	return -1;
}

/*
 * The shared mapping is the medium: the page frame a store maps lies in
 * the pmem namespace's physical range, not in RAM (the page cache).
 */
TEST_F_TIMEOUT(dax, mapping_maps_the_pmem_range, 120)
{
	unsigned long long start, end, phys;
	long ps = page_size();
	int i;

	ASSERT_EQ(0, pmem_range(self->dev, &start, &end))
		TH_LOG("no namespace resource for %s", self->dev);
	for (i = 0; i < NPAGES; i += 5) {
		self->map[i * ps] = pattern(i, 5);
		phys = phys_of(self->map + i * ps, ps);
		ASSERT_NE(0ULL, phys) TH_LOG("page %d not present in /proc/self/pagemap", i);
		EXPECT_TRUE(phys >= start && phys < end)
			TH_LOG("page %d maps %#llx, outside %s [%#llx, %#llx)",
			       i, phys, self->dev, start, end);
	}
}

/* After msync, the stored bytes read back from the block device itself. */
TEST_F_TIMEOUT(dax, msync_data_is_on_the_pmem_device, 120)
{
	static const int dirty[] = { 3, 10 };
	long ps = page_size();
	char *buf;
	int bdev, i;

	store(self, dirty, 2, 3);
	ASSERT_EQ(0, msync(self->map, NPAGES * ps, MS_SYNC));
	bdev = open(self->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, bdev) TH_LOG("open %s O_DIRECT: %s", self->dev, strerror(errno));
	ASSERT_EQ(0, posix_memalign((void **)&buf, ps, ps));
	for (i = 0; i < 2; i++) {
		long long at = physical(self->fd, dirty[i]);
		long k, bad = 0;

		EXPECT_LE(0, at) TH_LOG("FIEMAP of page %d: %s", dirty[i], strerror(errno));
		if (at < 0)
			continue;
		ASSERT_EQ(ps, pread(bdev, buf, ps, at)) TH_LOG("read %s at %lld: %s",
							       self->dev, at, strerror(errno));
		for (k = 0; k < ps; k++)
			bad += buf[k] != pattern(dirty[i], 3);
		EXPECT_EQ(0, bad) TH_LOG("page %d at %lld on %s: %ld bytes differ",
					 dirty[i], at, self->dev, bad);
	}
	free(buf);
	close(bdev);
}

TEST_F_TIMEOUT(dax, map_sync_works_on_dax_files, 120)
{
	long ps = page_size();
	char *p = mmap(NULL, NPAGES * ps, PROT_READ | PROT_WRITE,
		       MAP_SHARED_VALIDATE | MAP_SYNC, self->fd, 0);

	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap MAP_SYNC on %s: %s", self->path,
					strerror(errno));
	p[5 * ps] = pattern(5, 4);
	EXPECT_EQ(pattern(5, 4), self->map[5 * ps]);
	munmap(p, NPAGES * ps);
}

static int map_sync_errno(const char *dir)
{
	char path[128];
	int fd, err = 0;
	void *p;

	snprintf(path, sizeof(path), "%s/map-sync", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, page_size()))
		return -1;
	p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
		 MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (p == MAP_FAILED)
		err = errno;
	else
		munmap(p, page_size());
	close(fd);
	unlink(path);
	return err;
}

/* The same filesystem on the virtio disk (no DAX) refuses MAP_SYNC itself. */
TEST_F_TIMEOUT(dax, map_sync_without_dax_gives_eopnotsupp, 120)
{
	struct statx stx;

	if (statx(AT_FDCWD, plain_dir, 0, STATX_BASIC_STATS, &stx) ||
	    !guest_mount_has_option(plain_dir, "rw"))
		SKIP(return, "no %s: the boot has no disks (tests/boots flag disks)",
		     plain_dir);
	EXPECT_EQ(EOPNOTSUPP, map_sync_errno(plain_dir))
		TH_LOG("MAP_SYNC on %s (%s without DAX)", plain_dir, fstype);
	/* tmpfs has no FOP_MMAP_SYNC: mmap() refuses the flag before the fs */
	EXPECT_EQ(EOPNOTSUPP, map_sync_errno("/tmp")) TH_LOG("MAP_SYNC on tmpfs");
}

int main(int argc, char **argv)
{
	static char arg[128];

	/* The folder, /mnt/FSTYPE, names the filesystem. */
	if (guest_test_dir(&argc, &argv, &plain_dir, NULL)) {
		snprintf(arg, sizeof(arg), "%s", plain_dir);
		fstype = basename(arg);
	}
	return test_harness_run(argc, argv);
}
