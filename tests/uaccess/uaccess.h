/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the tests/uaccess programs: pages with a hole behind them, and
 * the digest of arch-independent observations.
 *
 * Every program folds what it observes (return values, errno, bytes read
 * back; never addresses, inode numbers or sizes that depend on the word
 * size) into one FNV-1a hash, kept in a MAP_SHARED page so that the forked
 * test children add to it, and prints it at exit as the suite's value
 * "digest" (guest_value(): "# value digest <hex>"). The same digest on
 * x86_64, riscv64 and arm (scripts/test compares them) is the proof that
 * the results are identical.
 */
#ifndef UACCESS_H
#define UACCESS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "guest.h"

/* Lengths 0..UA_MAXLEN: 2 words + 1 of a 64-bit word, so also of a 32-bit one. */
#define UA_MAXLEN	(2 * 8 + 1)

static uint64_t *ua_digest;
static pid_t ua_main_pid;

static void __attribute__((constructor)) ua_digest_init(void)
{
	ua_digest = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ua_digest == MAP_FAILED)
		_exit(2);
	*ua_digest = 0xcbf29ce484222325ull;
	ua_main_pid = getpid();
}

static void __attribute__((destructor)) ua_digest_print(void)
{
	if (getpid() == ua_main_pid)
		guest_value("digest", "%016llx",
			    (unsigned long long)*ua_digest);
}

static inline void ua_obs(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = *ua_digest;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ull;
	}
	*ua_digest = h;
}

/* A value as 8 little-endian bytes, whatever the word size. */
static inline void ua_obs_long(long long v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned long long)v >> (8 * i);
	ua_obs(b, 8);
}

/* A syscall's result: its return value and, when it failed, errno. */
static inline long ua_obs_ret(long ret)
{
	ua_obs_long(ret);
	ua_obs_long(ret < 0 ? errno : 0);
	return ret;
}

static inline long ua_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * The two kinds of hole every fixture runs with: variant "unmapped" and
 * variant "prot_none", as variant->prot_none for ua_map_between_holes().
 */
#define UA_HOLE_VARIANTS(fixture)					\
	FIXTURE_VARIANT(fixture) {					\
		int prot_none;						\
	};								\
	FIXTURE_VARIANT_ADD(fixture, unmapped) { .prot_none = 0 };	\
	FIXTURE_VARIANT_ADD(fixture, prot_none) { .prot_none = 1 }

/*
 * @npages read-write pages with a hole on either side: unmapped (munmap) or,
 * with @prot_none, a PROT_NONE mapping. Filled with @fill. Returns the first
 * page or NULL.
 */
static inline char *ua_map_between_holes(int npages, int prot_none, int fill)
{
	long ps = ua_page_size();
	char *p = mmap(NULL, (npages + 2) * ps, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + ps, npages * ps, PROT_READ | PROT_WRITE))
		return NULL;
	if (!prot_none && (munmap(p, ps) || munmap(p + (npages + 1) * ps, ps)))
		return NULL;
	memset(p + ps, fill, npages * ps);
	return p + ps;
}

/* Whether the page at @p is still a hole (nothing was mapped there since). */
static inline int ua_is_hole(void *p, int prot_none)
{
	unsigned char vec;

	if (prot_none)
		return 1;
	return mincore(p, ua_page_size(), &vec) && errno == ENOMEM;
}

#endif
