// SPDX-License-Identifier: GPL-2.0
/*
 * The Debian userspace of the "debian" boot: the tools later suites drive
 * (quota-tools 4.10 or newer, e2fsprogs, xfsprogs, util-linux) are there and
 * run against this kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

/* Run @cmd through /bin/sh; return its exit status, output in @out. */
static int run(const char *cmd, char *out, size_t size)
{
	size_t len = 0, n;
	FILE *p = popen(cmd, "r");
	int status;

	out[0] = '\0';
	if (!p)
		return -1;
	while (len + 1 < size && (n = fread(out + len, 1, size - 1 - len, p)) > 0)
		len += n;
	out[len] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(quota_tools_are_4_10_or_newer)
{
	char out[4096], *v;
	int major = 0, minor = 0;

	run("quota -V 2>&1", out, sizeof(out));
	v = strstr(out, "version ");
	ASSERT_NE(NULL, v) TH_LOG("quota -V printed: %s", out);
	ASSERT_EQ(2, sscanf(v, "version %d.%d", &major, &minor)) TH_LOG("%s", out);
	EXPECT_TRUE(major > 4 || (major == 4 && minor >= 10))
		TH_LOG("quota-tools %d.%d cannot administer tmpfs", major, minor);
}

TEST(admin_tools_run)
{
	static const char * const cmds[] = {
		"setquota -V", "repquota -V", "setproject --help",
		"xfs_quota -V", "chattr -V", "lsattr -V", "df --version",
		"mount --version",
	};
	char cmd[128], out[4096];
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s >/dev/null 2>&1; echo $?", cmds[i]);
		run(cmd, out, sizeof(out));
		/* 127: not found, 126: cannot execute; usage errors are fine. */
		EXPECT_TRUE(atoi(out) != 127 && atoi(out) != 126)
			TH_LOG("%s: exit %s", cmds[i], out);
	}
}

TEST(lsattr_reads_tmpfs_flags)
{
	char out[4096];

	EXPECT_EQ(0, run("lsattr -d /tmp 2>&1", out, sizeof(out))) TH_LOG("%s", out);
}

TEST(df_reports_root)
{
	char out[4096];

	ASSERT_EQ(0, run("df -k / 2>&1", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "/dev/vd")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
