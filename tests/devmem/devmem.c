// SPDX-License-Identifier: GPL-2.0
/*
 * IO_STRICT_DEVMEM (Linux 4.5): /dev/mem refuses a range a driver has
 * claimed (a busy resource in /proc/iomem), and a mapping made while the
 * range was free is revoked when a driver claims it; RAM is refused by
 * STRICT_DEVMEM alone; an unclaimed MMIO range stays open. iomem=relaxed
 * on the kernel command line turns the I/O part off: the same test then
 * expects the claimed ranges to map and the old mapping to survive, so a
 * strict boot and a relaxed boot of one kernel show that the option is
 * what makes the difference.
 *
 * kernel/resource.c: iomem_is_exclusive() says a busy resource is
 * exclusive when strict_iomem_checks (1 unless iomem=relaxed) and
 * IO_STRICT_DEVMEM; devmem_is_allowed() (arch/x86/mm/init.c,
 * lib/devmem_is_allowed.c for riscv and arm) refuses RAM and exclusive
 * ranges, so mmap_mem() and read_mem() give EPERM; __request_region()
 * calls revoke_iomem(), which zaps every /dev/mem mapping of the range
 * (all of them share one address space, iomem_get_mapping()), and the
 * next access faults with nothing to map it again: SIGBUS.
 *
 * The claimed range is the window of the spare virtio device (devmem.h)
 * while its transport driver is bound: a virtio-pci BAR on x86_64, a
 * virtio-mmio transport on riscv64 and arm, unbound and bound again
 * through sysfs; and the console UART where it is memory-mapped (riscv64's
 * 8250, arm's PL011; x86_64's is at I/O ports).
 *
 * read() of /dev/mem serves only what the architecture's
 * valid_phys_addr_range() allows: addresses below the top of RAM (riscv64,
 * x86_64: generic, __pa(high_memory)), and on arm also not below the
 * start of RAM. It gives EFAULT elsewhere before it looks at the
 * resource, so the read() test expects EPERM only where read() reaches.
 * With iomem=relaxed it does not try read() of MMIO at all: read_mem()
 * copies through xlate_dev_mem_ptr(), which is __va() on riscv64, a
 * linear-map address that does not map the device.
 *
 * /dev/mem is opened O_SYNC: on x86 (PAT) the mapping is then uncached
 * minus, the type the driver's ioremap() uses, and no memtype conflict
 * gets in the way.
 *
 * Negative controls (harness.negative=NAME): devmem-expect-strict makes
 * the relaxed boot expect the strict behaviour, devmem-expect-relaxed the
 * strict boot the relaxed one; either must turn the boot red.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "devmem.h"

/* What this boot's kernel command line says, or what a control says. */
static bool expect_relaxed(void)
{
	if (guest_negative_control("devmem-expect-relaxed"))
		return true;
	if (guest_negative_control("devmem-expect-strict"))
		return false;
	return guest_cmdline_has("iomem=relaxed");
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

static int open_devmem(struct __test_metadata *_metadata)
{
	int fd = open("/dev/mem", O_RDWR | O_SYNC | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		SKIP(return -1, "no /dev/mem: the kernel has no CONFIG_DEVMEM");
	ASSERT_LE(0, fd) TH_LOG("open /dev/mem: %s", strerror(errno));
	return fd;
}

/* mmap() one page of /dev/mem read-only; MAP_FAILED with errno set. */
static void *map_page(int fd, unsigned long long page)
{
	return mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, (off_t)page);
}

/* The lowest and highest address of System RAM in /proc/iomem. */
static int ram_bounds(unsigned long long *lo, unsigned long long *hi,
		      unsigned long long *big_start, unsigned long long *big_len)
{
	static struct iomem_entry e[IOMEM_MAX];
	int n = iomem_read(e, IOMEM_MAX), i;

	*lo = ~0ULL;
	*hi = 0;
	*big_len = 0;
	for (i = 0; i < n; i++) {
		if (e[i].depth || strcmp(e[i].name, "System RAM"))
			continue;
		if (e[i].start < *lo)
			*lo = e[i].start;
		if (e[i].end + 1 > *hi)
			*hi = e[i].end + 1;
		if (e[i].end - e[i].start + 1 > *big_len) {
			*big_start = e[i].start;
			*big_len = e[i].end - e[i].start + 1;
		}
	}
	return *big_len ? 0 : -1;
}

/*
 * A page of RAM: 16 MiB into the largest System RAM range, above x86's
 * first megabyte (where devmem_is_allowed() shows zeros instead of
 * refusing) and within arm's lowmem.
 */
static unsigned long long ram_page(void)
{
	unsigned long long lo, hi, start, len;

	if (ram_bounds(&lo, &hi, &start, &len))
		return 0;
	return (start + (len > (32ULL << 20) ? 16ULL << 20 : len / 2)) &
	       ~(unsigned long long)(page_size() - 1);
}

/* Does read() of /dev/mem get past valid_phys_addr_range() at @addr? */
static bool read_reaches(unsigned long long addr)
{
	unsigned long long lo, hi, start, len;

	if (ram_bounds(&lo, &hi, &start, &len))
		return false;
#ifdef __arm__
	if (addr < lo)
		return false;
#endif
	return addr + 64 <= hi;
}

TEST(ram_cannot_be_read)
{
	unsigned long long page = ram_page();
	char buf[64];
	int fd = open_devmem(_metadata);

	if (fd < 0)
		return;
	ASSERT_NE(0ULL, page) TH_LOG("no System RAM in /proc/iomem");
	EXPECT_EQ(-1, pread(fd, buf, sizeof(buf), (off_t)page));
	EXPECT_EQ(EPERM, errno) TH_LOG("read of RAM at %#llx: %s", page,
				       strerror(errno));
	close(fd);
}

TEST(ram_cannot_be_mapped)
{
	unsigned long long page = ram_page();
	int fd = open_devmem(_metadata);
	void *p;

	if (fd < 0)
		return;
	ASSERT_NE(0ULL, page) TH_LOG("no System RAM in /proc/iomem");
	p = map_page(fd, page);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno) TH_LOG("mmap of RAM at %#llx: %s", page,
				       strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, page_size());
	close(fd);
}

FIXTURE(spare) {
	struct spare dev;
	unsigned long long page;	/* the page of the register */
	int fd;
};

FIXTURE_SETUP(spare)
{
	self->fd = open_devmem(_metadata);
	if (self->fd < 0)
		return;
	if (spare_find(&self->dev))
		SKIP(return, "no spare virtio-rng device: the boot needs tests/boots flag spare-virtio");
	ASSERT_EQ(0, spare_bind(&self->dev, true)) TH_LOG("bind %s", self->dev.name);
	ASSERT_TRUE(spare_bound(&self->dev));
	self->page = self->dev.reg & ~(unsigned long long)(page_size() - 1);
	ASSERT_EQ(1, iomem_claimed(self->dev.win, self->dev.pci))
		TH_LOG("%s is bound, but its window %#llx is not claimed in /proc/iomem",
		       self->dev.name, self->dev.win);
}

FIXTURE_TEARDOWN(spare)
{
	if (self->dev.name[0])
		spare_bind(&self->dev, true);
	if (self->fd >= 0)
		close(self->fd);
}

/* The register reads as the device's: a virtio-mmio magic, virtio-pci queues. */
static void expect_register(struct __test_metadata *_metadata,
			    const struct spare *s, struct probe r)
{
	EXPECT_EQ(0, r.sig) TH_LOG("the load at %#llx ended with signal %d",
				   s->reg, r.sig);
	if (r.sig)
		return;
	if (s->pci) {
		EXPECT_LE(1U, r.val) TH_LOG("num_queues of %s reads %u", s->name, r.val);
	} else {
		EXPECT_EQ(VIRTIO_MMIO_MAGIC, r.val)
			TH_LOG("magic of %s reads %#x", s->name, r.val);
	}
}

TEST_F(spare, claimed_device_window_cannot_be_mapped_unless_iomem_relaxed)
{
	void *p = map_page(self->fd, self->page);

	if (!expect_relaxed()) {
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EPERM, errno) TH_LOG("mmap of %s's claimed page %#llx: %s",
					       self->dev.name, self->page, strerror(errno));
	} else {
		ASSERT_NE(MAP_FAILED, p) TH_LOG("iomem=relaxed: mmap of %s's page %#llx: %s",
						self->dev.name, self->page, strerror(errno));
		expect_register(_metadata, &self->dev,
				probe_load(p, self->page, self->dev.reg, self->dev.width));
	}
	if (p != MAP_FAILED)
		munmap(p, page_size());
}

TEST_F(spare, claimed_device_window_cannot_be_read)
{
	char buf[4];

	if (guest_cmdline_has("iomem=relaxed") || expect_relaxed())
		SKIP(return, "iomem=relaxed: read() of MMIO goes through the linear map (__va() on riscv64), not tried");
	if (!read_reaches(self->page))
		SKIP(return, "read() of /dev/mem serves only the RAM range here (EFAULT at %#llx, before any check)",
		     self->page);
	EXPECT_EQ(-1, pread(self->fd, buf, self->dev.width, (off_t)self->dev.reg));
	EXPECT_EQ(EPERM, errno) TH_LOG("read of %s's claimed register %#llx: %s",
				       self->dev.name, self->dev.reg, strerror(errno));
}

TEST_F(spare, unclaimed_device_window_can_be_mapped_and_read)
{
	void *p;

	ASSERT_EQ(0, spare_bind(&self->dev, false)) TH_LOG("unbind %s", self->dev.name);
	ASSERT_EQ(0, iomem_claimed(self->dev.win, self->dev.pci))
		TH_LOG("%s is unbound, but %#llx is still claimed", self->dev.name,
		       self->dev.win);
	p = map_page(self->fd, self->page);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap of unclaimed %#llx: %s", self->page,
					strerror(errno));
	expect_register(_metadata, &self->dev,
			probe_load(p, self->page, self->dev.reg, self->dev.width));
	munmap(p, page_size());
}

/*
 * Map the window while the driver is unbound, bind it: with the I/O check
 * the mapping is revoked and the next load is a SIGBUS; with iomem=relaxed
 * revoke_iomem() leaves it ("go ahead, what's the worst that can happen?").
 */
TEST_F(spare, binding_the_driver_revokes_the_mapping_unless_iomem_relaxed)
{
	struct probe r;
	void *p;

	ASSERT_EQ(0, spare_bind(&self->dev, false)) TH_LOG("unbind %s", self->dev.name);
	p = map_page(self->fd, self->page);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap of unclaimed %#llx: %s", self->page,
					strerror(errno));
	expect_register(_metadata, &self->dev,
			probe_load(p, self->page, self->dev.reg, self->dev.width));
	ASSERT_EQ(0, spare_bind(&self->dev, true)) TH_LOG("bind %s", self->dev.name);
	ASSERT_EQ(1, iomem_claimed(self->dev.win, self->dev.pci));
	r = probe_load(p, self->page, self->dev.reg, self->dev.width);
	if (!expect_relaxed()) {
		EXPECT_EQ(SIGBUS, r.sig)
			TH_LOG("the load through the old mapping of %s after the bind ended with %d, not SIGBUS",
			       self->dev.name, r.sig);
	} else {
		expect_register(_metadata, &self->dev, r);
	}
	munmap(p, page_size());
}

/*
 * The console UART where it is memory-mapped: an entry of /proc/iomem
 * named like a UART (riscv64 "serial@10000000", arm "pl011@9000000") with
 * its driver's claim nested below it.
 */
static int find_uart(unsigned long long *start, bool *pl011)
{
	static struct iomem_entry e[IOMEM_MAX];
	int n = iomem_read(e, IOMEM_MAX), i;

	for (i = 0; i + 1 < n; i++) {
		if (!strstr(e[i].name, "serial") && !strstr(e[i].name, "pl011") &&
		    !strstr(e[i].name, "uart"))
			continue;
		if (e[i + 1].depth <= e[i].depth || e[i + 1].start != e[i].start)
			continue;
		*start = e[i].start;
		*pl011 = strstr(e[i].name, "pl011") != NULL;
		return 0;
	}
	return -1;
}

TEST(console_uart_cannot_be_mapped_unless_iomem_relaxed)
{
	unsigned long long uart;
	bool pl011;
	int fd = open_devmem(_metadata);
	void *p;

	if (fd < 0)
		return;
	if (find_uart(&uart, &pl011))
		SKIP(close(fd); return, "no claimed memory-mapped UART in /proc/iomem (x86_64's is at I/O ports)");
	p = map_page(fd, uart & ~(unsigned long long)(page_size() - 1));
	if (!expect_relaxed()) {
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(EPERM, errno) TH_LOG("mmap of the UART at %#llx: %s", uart,
					       strerror(errno));
		if (read_reaches(uart)) {
			char c;

			EXPECT_EQ(-1, pread(fd, &c, 1, (off_t)uart));
			EXPECT_EQ(EPERM, errno) TH_LOG("read of the UART at %#llx: %s",
						       uart, strerror(errno));
		}
	} else {
		unsigned long long page = uart & ~(unsigned long long)(page_size() - 1);
		struct probe r;

		ASSERT_NE(MAP_FAILED, p) TH_LOG("iomem=relaxed: mmap of the UART at %#llx: %s",
						uart, strerror(errno));
		/*
		 * Registers without side effects: the PL011's PeriphID0 (0x11),
		 * the 8250's scratch register.
		 */
		r = probe_load(p, page, uart + (pl011 ? 0xfe0 : 7), pl011 ? 4 : 1);
		EXPECT_EQ(0, r.sig);
		if (pl011)
			EXPECT_EQ(0x11U, r.val & 0xff) TH_LOG("PL011 PeriphID0 %#x", r.val);
	}
	if (p != MAP_FAILED)
		munmap(p, page_size());
	close(fd);
}

TEST_HARNESS_MAIN
