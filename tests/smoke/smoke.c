// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the guest set-up: every vCPU is online, the pseudo
 * filesystems init mounts are there, tmpfs takes its quota options, and
 * the ext4 and XFS disks the host formatted are mounted with project
 * quota, beside a tmpfs instance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <linux/magic.h>

#include "kselftest_harness.h"
#include "guest.h"

static void expect_fs(struct __test_metadata *_metadata, const char *path,
		      long magic)
{
	struct statfs st;

	ASSERT_EQ(0, statfs(path, &st)) TH_LOG("statfs %s: %s", path, strerror(errno));
	EXPECT_EQ(magic, st.f_type) TH_LOG("%s has type 0x%lx", path, (long)st.f_type);
}

TEST(pseudo_filesystems_are_mounted)
{
	expect_fs(_metadata, "/proc", PROC_SUPER_MAGIC);
	expect_fs(_metadata, "/sys", SYSFS_MAGIC);
	expect_fs(_metadata, "/dev", TMPFS_MAGIC);
	expect_fs(_metadata, "/sys/kernel/debug", DEBUGFS_MAGIC);
	expect_fs(_metadata, "/tmp", TMPFS_MAGIC);
}

/*
 * Every vCPU QEMU was given is online: scripts/boot passes the count of
 * its -smp as harness.cpus=N (none when the machine's default is used).
 */
TEST(every_vcpu_is_online)
{
	char val[32];
	long want, online = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = guest_param("cpus", val, sizeof(val));

	if (ret == -ENODATA)
		SKIP(return, "no -smp on the QEMU command line");
	ASSERT_EQ(0, ret) TH_LOG("harness.cpus: %s", strerror(-ret));
	want = strtol(val, NULL, 10);
	ASSERT_GT(want, 0) TH_LOG("bad harness.cpus=%s", val);
	EXPECT_EQ(want, online)
		TH_LOG("QEMU -smp %ld, %ld CPUs online (x86_64 without ACPI: one CPU per socket, boards/x86_64)",
		       want, online);
}

TEST(kernel_release_is_6_12)
{
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	EXPECT_EQ(0, strncmp(u.release, "6.12.", 5)) TH_LOG("release %s", u.release);
}

TEST(tmpfs_mounts_with_usrquota)
{
	char dir[] = "/tmp/smoke.XXXXXX";

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, mount("tmpfs", dir, "tmpfs", 0, "usrquota,grpquota,size=1m"))
		TH_LOG("mount: %s", strerror(errno));
	EXPECT_TRUE(guest_mount_has_option(dir, "usrquota"));
	EXPECT_EQ(0, umount(dir));
	rmdir(dir);
}

/* init mounts the disks the host formatted (harness.mounts=) on /mnt. */
static void expect_mounted(struct __test_metadata *_metadata, const char *dir,
			   long magic, const char *option)
{
	struct stat st;

	if (stat(dir, &st))
		SKIP(return, "%s is not there: this boot has no disks", dir);
	expect_fs(_metadata, dir, magic);
	EXPECT_TRUE(guest_mount_has_option(dir, option))
		TH_LOG("%s is not mounted with %s", dir, option);
}

TEST(ext4_disk_is_mounted_with_prjquota)
{
	expect_mounted(_metadata, "/mnt/ext4", EXT4_SUPER_MAGIC, "prjquota");
}

TEST(xfs_disk_is_mounted_with_prjquota)
{
	expect_mounted(_metadata, "/mnt/xfs", XFS_SUPER_MAGIC, "prjquota");
}

TEST(tmpfs_instance_is_mounted)
{
	expect_mounted(_metadata, "/mnt/tmpfs", TMPFS_MAGIC, "rw");
}

TEST_HARNESS_MAIN
