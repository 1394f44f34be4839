// SPDX-License-Identifier: GPL-2.0
/*
 * A user's walk-through of project quota with the tools users run, on the
 * filesystem mounted at argv[1] (with prjquota): chattr/lsattr from
 * e2fsprogs, setquota/quota/repquota/setproject from quota-tools (>= 4.10,
 * which can administer tmpfs), df and util-linux's setpriv.  Runs in the
 * Debian userspace of the "debian" boot, on tmpfs, ext4 and XFS alike.
 *
 * Every step checks the tool's exit status and the line it prints, so a
 * change in what users see fails here.  The writes are made by an
 * unprivileged user (uid 1000, no capabilities), as root's CAP_SYS_RESOURCE
 * ignores hard limits on every filesystem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"

#define USER	"setpriv --reuid=1000 --regid=1000 --clear-groups --inh-caps=-all "
#define OUT_MAX	8192

static const char *mnt = "/mnt/tmpfs";

/* Run the formatted command through /bin/sh; exit status, output in @out. */
static int run(char *out, const char *fmt, ...)
{
	char cmd[1024];
	size_t len = 0, n;
	va_list ap;
	FILE *p;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (len + 1 < OUT_MAX &&
	       (n = fread(out + len, 1, OUT_MAX - 1 - len, p)) > 0)
		len += n;
	out[len] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Does a line of @out match the extended regular expression @re? */
static bool has_line(const char *out, const char *re)
{
	regex_t r;
	bool found;

	if (regcomp(&r, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB))
		return false;
	found = !regexec(&r, out, 0, NULL, 0);
	regfree(&r);
	return found;
}

/* How many lines of @out match @re? */
static int count_lines(const char *out, const char *re)
{
	char line[1024];
	const char *l, *nl;
	int n = 0;

	for (l = out; *l; l = *nl ? nl + 1 : nl) {
		nl = strchrnul(l, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(nl - l), l);
		n += has_line(line, re);
	}
	return n;
}

/* The device column quota(1) and repquota(1) show for the mount. */
static void mount_device(char *dev, size_t size)
{
	char line[512], d[256], m[256];
	FILE *f = fopen("/proc/mounts", "r");

	snprintf(dev, size, "?");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %255s", d, m) == 2 && !strcmp(m, mnt))
			snprintf(dev, size, "%s", d);
	if (f)
		fclose(f);
}

/*
 * quota -P ID's numbers for the mount: blocks used and hard limit (KiB),
 * files used and hard limit.  Returns 0 when the line was found.
 */
static int quota_of(unsigned int id, long *blocks, long *blimit,
		    long *files, long *flimit, char *out)
{
	char dev[256], *l, field[256], b[32], f[32];
	long bsoft, fsoft;

	mount_device(dev, sizeof(dev));
	/* quota(1) exits with 1 when a limit is reached: read the line */
	if (run(out, "quota -w -P %u", id) < 0)
		return -1;
	for (l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (sscanf(l, "%255s %31s %ld %ld %31s %ld %ld", field, b, &bsoft,
			   blimit, f, &fsoft, flimit) == 7 && !strcmp(field, dev)) {
			*blocks = atol(b);	/* "1024*" when at the limit */
			*files = atol(f);
			return 0;
		}
	}
	return -1;
}

FIXTURE(walk) {
	char dir[256];
	unsigned int id;
	char out[OUT_MAX];
};

FIXTURE_SETUP(walk)
{
	char line[512];
	FILE *f;
	bool prjquota = false;

	f = fopen("/proc/mounts", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, mnt) && strstr(line, "prjquota"))
			prjquota = true;
	if (f)
		fclose(f);
	if (!prjquota)
		SKIP(return, "%s is not mounted with prjquota", mnt);

	/* One project per test, so that no test sees another's usage. */
	self->id = 4200 + (getpid() % 500);
	snprintf(self->dir, sizeof(self->dir), "%s/walk%u", mnt, self->id);
	ASSERT_EQ(0, run(self->out, "rm -rf %s && mkdir %s && chown 1000:1000 %s",
			 self->dir, self->dir, self->dir)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, run(self->out, "chattr +P -p %u %s", self->id, self->dir))
		TH_LOG("%s", self->out);
}

FIXTURE_TEARDOWN(walk)
{
	char out[OUT_MAX];

	run(out, "rm -rf %s; setquota -P %u 0 0 0 0 %s", self->dir, self->id, mnt);
}

TEST_F(walk, lsattr_shows_the_project_and_P_set_by_chattr)
{
	char re[512];

	ASSERT_EQ(0, run(self->out, "lsattr -pd %s", self->dir))
		TH_LOG("%s", self->out);
	/* e.g. "   42 -------------------P-- /mnt/tmpfs/job42" */
	snprintf(re, sizeof(re), "^ *%u +[-a-zA-Z]*P[-a-zA-Z]* +%s$", self->id,
		 self->dir);
	EXPECT_TRUE(has_line(self->out, re)) TH_LOG("lsattr printed: %s", self->out);
}

TEST_F(walk, setquota_limits_show_in_quota_and_repquota)
{
	long blocks, blimit, files, flimit;
	char re[256];

	ASSERT_EQ(0, run(self->out, "setquota -P %u 0 2048 0 50 %s", self->id, mnt))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, quota_of(self->id, &blocks, &blimit, &files, &flimit,
			      self->out)) TH_LOG("quota printed: %s", self->out);
	EXPECT_EQ(2048, blimit);
	EXPECT_EQ(50, flimit);
	EXPECT_EQ(1, files) TH_LOG("the project directory is its one inode");

	ASSERT_EQ(0, run(self->out, "repquota -P %s", mnt)) TH_LOG("%s", self->out);
	/* "#4242     --       0       0    2048              1     0    50" */
	snprintf(re, sizeof(re), "^#%u +-- +%ld +0 +2048 +1 +0 +50 *$",
		 self->id, blocks);
	EXPECT_TRUE(has_line(self->out, re)) TH_LOG("repquota printed: %s", self->out);
}

TEST_F(walk, df_in_the_project_directory_shows_the_project_limit)
{
	char re[256];

	ASSERT_EQ(0, run(self->out, "setquota -P %u 0 2048 0 50 %s", self->id, mnt))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, run(self->out, USER "dd if=/dev/zero of=%s/f bs=1024 count=512 conv=fsync",
			 self->dir)) TH_LOG("%s", self->out);

	ASSERT_EQ(0, run(self->out, "df -k %s", self->dir)) TH_LOG("%s", self->out);
	/* Filesystem 1K-blocks Used Available Use% Mounted on: 2048 total */
	snprintf(re, sizeof(re), "^[^ ]+ +2048 +[0-9]+ +[0-9]+ +[0-9]+%% +%s$", mnt);
	EXPECT_TRUE(has_line(self->out, re)) TH_LOG("df printed: %s", self->out);
	/* at least the 512 KiB written are used, and used + available = 2048 */
	{
		long total, used, avail;
		char *l = strchr(self->out, '\n');

		ASSERT_NE(NULL, l);
		ASSERT_EQ(3, sscanf(l + 1, "%*s %ld %ld %ld", &total, &used, &avail))
			TH_LOG("%s", self->out);
		EXPECT_LE(512, used);
		EXPECT_EQ(total, used + avail);
	}

	ASSERT_EQ(0, run(self->out, "df -i %s", self->dir)) TH_LOG("%s", self->out);
	snprintf(re, sizeof(re), "^[^ ]+ +50 +2 +48 +[0-9]+%% +%s$", mnt);
	EXPECT_TRUE(has_line(self->out, re)) TH_LOG("df -i printed: %s", self->out);
}

TEST_F(walk, a_user_writing_past_the_block_limit_gets_edquot)
{
	long blocks, blimit, files, flimit, before;

	ASSERT_EQ(0, run(self->out, "setquota -P %u 0 1024 0 0 %s", self->id, mnt))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, quota_of(self->id, &before, &blimit, &files, &flimit,
			      self->out)) TH_LOG("quota printed: %s", self->out);
	EXPECT_NE(0, run(self->out, USER "dd if=/dev/zero of=%s/f bs=64k count=32",
			 self->dir));
	EXPECT_TRUE(has_line(self->out, "^dd: error writing '.*/f': Disk quota exceeded$"))
		TH_LOG("dd printed: %s", self->out);

	ASSERT_EQ(0, quota_of(self->id, &blocks, &blimit, &files, &flimit,
			      self->out)) TH_LOG("quota printed: %s", self->out);
	EXPECT_EQ(1024, blimit);
	EXPECT_EQ(1024, blocks) TH_LOG("the write stops exactly at the limit: %s",
				     self->out);
	EXPECT_TRUE(has_line(self->out, "^ *[^ ]+ +1024\\* ")) TH_LOG("%s", self->out);

	/* removing the file gives the space back */
	ASSERT_EQ(0, run(self->out, "rm %s/f && sync", self->dir));
	ASSERT_EQ(0, quota_of(self->id, &blocks, &blimit, &files, &flimit,
			      self->out)) TH_LOG("quota printed: %s", self->out);
	EXPECT_EQ(before, blocks) TH_LOG("%s", self->out);
	EXPECT_EQ(1, files) TH_LOG("%s", self->out);
}

TEST_F(walk, a_user_creating_past_the_inode_limit_gets_edquot)
{
	long blocks, blimit, files, flimit;

	/* the directory and three files fit, the fifth inode does not */
	ASSERT_EQ(0, run(self->out, "setquota -P %u 0 0 0 4 %s", self->id, mnt))
		TH_LOG("%s", self->out);
	EXPECT_EQ(0, run(self->out, USER "touch %s/a %s/b %s/c", self->dir,
			 self->dir, self->dir)) TH_LOG("%s", self->out);
	EXPECT_NE(0, run(self->out, USER "touch %s/d", self->dir));
	EXPECT_TRUE(has_line(self->out, "^touch: cannot touch '.*/d': Disk quota exceeded$"))
		TH_LOG("touch printed: %s", self->out);
	EXPECT_NE(0, run(self->out, USER "mkdir %s/e", self->dir));
	EXPECT_TRUE(has_line(self->out, "Disk quota exceeded")) TH_LOG("%s", self->out);

	ASSERT_EQ(0, quota_of(self->id, &blocks, &blimit, &files, &flimit,
			      self->out)) TH_LOG("quota printed: %s", self->out);
	EXPECT_EQ(4, files);
	EXPECT_TRUE(has_line(self->out, " 4\\* +0 +4 ")) TH_LOG("%s", self->out);
}

TEST_F(walk, chattr_p_into_a_full_project_gets_edquot)
{
	char other[300];

	/* a 256 KiB file of the user's, in no project's directory */
	snprintf(other, sizeof(other), "%s/outside%u", mnt, self->id);
	ASSERT_EQ(0, run(self->out,
			 "dd if=/dev/zero of=%s bs=64k count=4 conv=fsync && chown 1000 %s",
			 other, other)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, run(self->out, "setquota -P %u 0 128 0 0 %s", self->id, mnt))
		TH_LOG("%s", self->out);

	EXPECT_NE(0, run(self->out, USER "chattr -p %u %s", self->id, other));
	EXPECT_TRUE(has_line(self->out, "Disk quota exceeded")) TH_LOG("chattr printed: %s",
								   self->out);
	ASSERT_EQ(0, run(self->out, "lsattr -p %s", other));
	EXPECT_TRUE(has_line(self->out, "^ *0 ")) TH_LOG("the file stays in project 0: %s",
							 self->out);
	run(self->out, "rm -f %s", other);
}

TEST_F(walk, setproject_sets_the_named_project_on_a_tree)
{
	char re[512];

	/* setproject -P NAME reads NAME's ID from /etc/projid */
	ASSERT_EQ(0, run(self->out,
			 "grep -q '^walk%u:' /etc/projid || echo walk%u:%u >> /etc/projid",
			 self->id, self->id, self->id + 1000));
	ASSERT_EQ(0, run(self->out, "mkdir -p %s/t/d && touch %s/t/a %s/t/d/b",
			 self->dir, self->dir, self->dir));
	ASSERT_EQ(0, run(self->out, "setproject -P walk%u %s/t", self->id, self->dir))
		TH_LOG("%s", self->out);

	ASSERT_EQ(0, run(self->out, "lsattr -pd %s/t %s/t/a %s/t/d %s/t/d/b",
			 self->dir, self->dir, self->dir, self->dir));
	/* all four inodes, "   5242 ---------------------- /mnt/..." */
	snprintf(re, sizeof(re), "^ *%u +[-a-zA-Z]+ +%s/t(/a|/d|/d/b)?$",
		 self->id + 1000, self->dir);
	EXPECT_EQ(4, count_lines(self->out, re)) TH_LOG("lsattr printed: %s", self->out);

	ASSERT_EQ(0, run(self->out, "repquota -P %s", mnt)) TH_LOG("%s", self->out);
	/* repquota names the project from /etc/projid: 4 inodes */
	snprintf(re, sizeof(re), "^walk%u +-- +[0-9]+ +0 +0 +4 +0 +0 *$", self->id);
	EXPECT_TRUE(has_line(self->out, re)) TH_LOG("repquota printed: %s", self->out);
}

GUEST_TEST_MAIN(mnt, NULL)
