/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LKDTM (drivers/misc/lkdtm, in the test builds' kernels) for the tests of
 * any topic that provoke a kernel crash or report on purpose: a crash type
 * written to debugfs provoke-crash/DIRECT runs in the writer's context.
 * A test that expects a splat announces it first (guest_expect_splat()).
 * Include it as "lkdtm/lkdtm.h".
 */
#ifndef LKDTM_H
#define LKDTM_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define LKDTM_DIRECT	"/sys/kernel/debug/provoke-crash/DIRECT"

/* Whether this kernel has LKDTM and debugfs; if not, errno says why. */
static inline bool lkdtm_available(void)
{
	return !access(LKDTM_DIRECT, W_OK);
}

/* LKDTM_DIRECT open for lkdtm_provoke_fd(): the fd, or -errno. */
static inline int lkdtm_open(void)
{
	int fd = open(LKDTM_DIRECT, O_WRONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * Provoke crash type @type through the LKDTM_DIRECT open at @fd: 0 or
 * -errno (a type that kills the caller or panics does not return).
 */
static inline int lkdtm_provoke_fd(int fd, const char *type)
{
	return write(fd, type, strlen(type)) < 0 ? -errno : 0;
}

/* lkdtm_provoke_fd() on a LKDTM_DIRECT of its own. */
static inline int lkdtm_provoke(const char *type)
{
	int fd = lkdtm_open(), ret;

	if (fd < 0)
		return fd;
	ret = lkdtm_provoke_fd(fd, type);
	close(fd);
	return ret;
}

#endif
