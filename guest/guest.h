/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's services to the guest test programs: what the host set up
 * (disks, mounts, the test folder, negative controls), the kernel log and
 * splat announcements, values for the host (guest/protocol.h). Helpers of
 * one topic live next to its tests (tests/projquota/projquota.h,
 * tests/ubsan/ubsan.h, tests/lkdtm/lkdtm.h).
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "protocol.h"

/*
 * A value for the host, on stdout: "# value @key TEXT" (HARNESS_VALUE),
 * TEXT printf-formatted. The verdict writes it to the boot's values file
 * (a digest, a benchmark figure); it is not a test case.
 */
void guest_value(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Find the virtio disk with serial @serial; write "/dev/vdX" into @dev. */
int guest_find_disk(const char *serial, char *dev, size_t size);

/*
 * The file at @path, up to @size - 1 bytes, as a string in @buf (empty if
 * it cannot be read). Returns 0 or -errno.
 */
int guest_read_file(const char *path, char *buf, size_t size);

/* Write the string @val to the file @path in one write(); 0 or -errno. */
int guest_write_file(const char *path, const char *val);

/*
 * The value of the kernel command line's "harness.@key=VALUE" (a word of
 * its own) into @buf: 0, -ENODATA when there is none, -E2BIG when it does
 * not fit, or -errno when /proc/cmdline cannot be read (the first call
 * reads it, the others use that copy).
 */
int guest_param(const char *key, char *buf, size_t size);

/* Is @word (e.g. "iomem=relaxed") a word of the kernel command line? */
bool guest_cmdline_has(const char *word);

/*
 * A test's negative control: true if "harness.negative=NAME[,NAME...]" on
 * the kernel command line (scripts/boot: NEGATIVE=NAME) names @name. The
 * test then does the wrong thing on purpose, and the boot must turn red.
 */
bool guest_negative_control(const char *name);

/* True if the mount at @dir lists @option in /proc/self/mounts. */
bool guest_mount_has_option(const char *dir, const char *option);

/*
 * The folder a test program works in: init runs suite NAME@M of
 * harness.suites= as "/tests/NAME /mnt/M". If the first argument is not a
 * kselftest harness option ("-..."), it is the folder: *@dir is set to it
 * and it is taken off @argc/@argv. Else $@env, if @env is not NULL and
 * the variable is set (to run the program by hand); else *@dir is left
 * as it is. Returns whether *@dir was set.
 */
bool guest_test_dir(int *argc, char ***argv, const char **dir,
		    const char *env);

/*
 * main() of a kselftest_harness.h program that works in the folder @dir
 * (a "static const char *" of the program, its default), see
 * guest_test_dir(); instead of TEST_HARNESS_MAIN.
 */
#define GUEST_TEST_MAIN(dir, env)					\
	int main(int argc, char **argv)					\
	{								\
		guest_test_dir(&argc, &argv, &(dir), (env));		\
		return test_harness_run(argc, argv);			\
	}

/*
 * The kernel log as tests that provoke splats read it: guest_kmsg_open()
 * opens /dev/kmsg for reading and writing, positioned after the last
 * record (fd or -errno); guest_kmsg_read() appends every record after the
 * position to the string @log (of @size bytes, kept NUL-terminated, records
 * that do not fit are left out), the kernel's own records only: the lines
 * user space wrote (init relays every suite's output through /dev/kmsg)
 * are skipped; guest_expect_splat() announces the splat
 * the next provocation will cause to the boot verdict with the line
 * HARNESS_FMT_EXPECT, "harness: expect splat: @what" (0 or -errno).
 */
int guest_kmsg_open(void);
void guest_kmsg_read(int fd, char *log, size_t size);
int guest_expect_splat(int fd, const char *what);

#endif
