// SPDX-License-Identifier: GPL-2.0
/*
 * execve() argument and environment strings (fs/exec.c copy_strings():
 * get_user() of each pointer, strnlen_user(.., MAX_ARG_STRLEN), then the
 * copy): strings of lengths 0..UA_MAXLEN ending right before a hole
 * (unmapped or PROT_NONE) and at every alignment, the argv array itself
 * ending before the hole, strings and arrays crossing into it (EFAULT,
 * before the point of no return), 10,000 arguments, and the MAX_ARG_STRLEN
 * limit (32 pages: computed from the page size) before the hole.
 *
 * The program re-executes itself (/proc/self/exe) with argv[0]
 * "uaccess-echo": a constructor then writes argc, every argument and
 * every environment string to fd 3 and exits, so the test reads back
 * exactly what the new image received.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "uaccess.h"

static const char alpha[] = "abcdefghijklmnopqrstuvwxyz";

static void put_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t r;

	while (n) {
		r = write(fd, c, n);
		if (r <= 0)
			_exit(3);
		c += r;
		n -= r;
	}
}

/* argv[0] "uaccess-echo": write count and strings (with their NULs) to fd 3. */
static void __attribute__((constructor)) echo(int argc, char **argv, char **envp)
{
	int i, n = 0;

	if (argc < 1 || strcmp(argv[0], "uaccess-echo"))
		return;
	put_all(3, &argc, sizeof(argc));
	for (i = 0; i < argc; i++)
		put_all(3, argv[i], strlen(argv[i]) + 1);
	while (envp[n])
		n++;
	put_all(3, &n, sizeof(n));
	for (i = 0; i < n; i++)
		put_all(3, envp[i], strlen(envp[i]) + 1);
	_exit(0);
}

/*
 * execve(/proc/self/exe, argv, envp) in a child; returns -errno of a
 * failed execve, else 0 and what the new image echoed in *@out (malloc'd).
 */
static long run(char *const argv[], char *const envp[], char **out, size_t *outlen)
{
	int p[2], status, err = 0;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	pid_t pid;
	ssize_t r;

	if (!buf || pipe(p))
		return -ENOMEM;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (p[1] != 3) {
			dup2(p[1], 3);
			close(p[1]);
		}
		execve("/proc/self/exe", argv, envp);
		err = errno;
		put_all(3, "E", 1);
		put_all(3, &err, sizeof(err));
		_exit(0);
	}
	close(p[1]);
	while ((r = read(p[0], buf + len, cap - len)) > 0) {
		len += r;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	close(p[0]);
	waitpid(pid, &status, 0);
	if (len == 1 + sizeof(int) && buf[0] == 'E') {
		memcpy(&err, buf + 1, sizeof(err));
		free(buf);
		return -err;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		free(buf);
		return -1000;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/*
 * run()'s result into the digest. It is 0 or -errno already: errno itself
 * is whatever the test process's last failed call left (ua_obs_ret() is for
 * system calls), and it differed between boards.
 */
static long obs(long ret)
{
	ua_obs_long(ret);
	return ret;
}

/* What the echo must be for @argv and @envp. */
static int echo_is(char *got, size_t len, char *const argv[], char *const envp[])
{
	int n, i;
	size_t pos = sizeof(int);

	for (n = 0; argv[n]; n++)
		;
	if (len < pos || memcmp(got, &n, sizeof(int)))
		return 0;
	for (i = 0; i < n; i++) {
		size_t l = strlen(argv[i]) + 1;

		if (pos + l > len || memcmp(got + pos, argv[i], l))
			return 0;
		pos += l;
	}
	for (n = 0; envp[n]; n++)
		;
	if (pos + sizeof(int) > len || memcmp(got + pos, &n, sizeof(int)))
		return 0;
	pos += sizeof(int);
	for (i = 0; i < n; i++) {
		size_t l = strlen(envp[i]) + 1;

		if (pos + l > len || memcmp(got + pos, envp[i], l))
			return 0;
		pos += l;
	}
	return pos == len;
}

FIXTURE(exec) {
	char *area;	/* pages between holes */
	long ps;
	int npages;
};

UA_HOLE_VARIANTS(exec);

FIXTURE_SETUP(exec)
{
	self->ps = ua_page_size();
	self->npages = 34;	/* MAX_ARG_STRLEN (32 pages) and some */
	self->area = ua_map_between_holes(self->npages, variant->prot_none, 'X');
	ASSERT_NE(NULL, self->area);
}

FIXTURE_TEARDOWN(exec)
{
}

static char *hole_of(FIXTURE_DATA(exec) *self)
{
	return self->area + self->npages * self->ps;
}

TEST_F_TIMEOUT(exec, strings_ending_before_hole_arrive_at_every_length_and_alignment, 120)
{
	char *hole = hole_of(self), *out, copies[8][32];
	char *argv[12], *envp[3];
	size_t len;
	int l, a;

	for (l = 0; l <= UA_MAXLEN; l++) {
		char *s = hole - 1 - l;

		memcpy(s, alpha, l);
		s[l] = '\0';
		argv[0] = "uaccess-echo";
		argv[1] = s;
		/* The same string at alignments 0..7 elsewhere. */
		for (a = 0; a < 8; a++) {
			memcpy(copies[a] + a, alpha, l);
			copies[a][a + l] = '\0';
			argv[2 + a] = copies[a] + a;
		}
		argv[10] = NULL;
		envp[0] = s;
		envp[1] = "UA=1";
		envp[2] = NULL;
		ASSERT_EQ(0, obs(run(argv, envp, &out, &len))) TH_LOG("len %d", l);
		EXPECT_TRUE(echo_is(out, len, argv, envp)) TH_LOG("len %d", l);
		ua_obs(out, len);
		free(out);
	}
}

TEST_F_TIMEOUT(exec, strings_crossing_into_hole_give_efault, 120)
{
	char *hole = hole_of(self), *out;
	char *argv[3], *envp[2];
	size_t len;
	int l;

	for (l = 0; l <= UA_MAXLEN; l++) {
		char *s = hole - l;

		memcpy(s, alpha, l);
		argv[0] = "uaccess-echo";
		argv[1] = s;
		argv[2] = NULL;
		envp[0] = NULL;
		EXPECT_EQ(-EFAULT, obs(run(argv, envp, &out, &len))) TH_LOG("argv len %d", l);
		argv[1] = NULL;
		envp[0] = s;
		envp[1] = NULL;
		EXPECT_EQ(-EFAULT, obs(run(argv, envp, &out, &len))) TH_LOG("envp len %d", l);
	}
}

TEST_F_TIMEOUT(exec, argv_array_ending_before_hole_and_crossing_it, 120)
{
	char **v = (char **)hole_of(self) - 3, *out;
	char *envp[] = { NULL };
	size_t len;

	v[0] = "uaccess-echo";
	v[1] = "one";
	v[2] = NULL;
	EXPECT_EQ(0, obs(run(v, envp, &out, &len)));
	EXPECT_TRUE(echo_is(out, len, v, envp));
	ua_obs(out, len);
	free(out);
	/* Without its NULL: the next pointer is in the hole. */
	v = (char **)hole_of(self) - 2;
	v[0] = "uaccess-echo";
	v[1] = "one";
	EXPECT_EQ(-EFAULT, obs(run(v, envp, &out, &len)));
	EXPECT_EQ(-EFAULT, obs(run(envp, v, &out, &len)));
}

TEST_F_TIMEOUT(exec, ten_thousand_arguments_of_every_length_arrive, 120)
{
	static char *argv[10002], store[10000 * 26];
	char *envp[] = { "UA=1", NULL }, *out;
	size_t len;
	int i;

	argv[0] = "uaccess-echo";
	for (i = 0; i < 10000; i++) {
		char *s = store + 26 * i;

		memcpy(s, alpha + i % 7, i % 19);
		s[i % 19] = '\0';
		argv[i + 1] = s;
	}
	argv[10001] = NULL;
	ASSERT_EQ(0, obs(run(argv, envp, &out, &len)));
	EXPECT_TRUE(echo_is(out, len, argv, envp));
	ua_obs(out, len);
	free(out);
}

/* MAX_ARG_STRLEN = 32 * PAGE_SIZE bytes with the NUL: one more is E2BIG, even before the hole. */
TEST_F_TIMEOUT(exec, argument_at_max_arg_strlen_before_hole, 120)
{
	long max = 32 * self->ps;
	char *hole = hole_of(self), *out;
	char *argv[3], *envp[] = { NULL };
	size_t len;

	memset(self->area, 'X', self->npages * self->ps);
	hole[-1] = '\0';
	argv[0] = "uaccess-echo";
	argv[1] = hole - max;
	argv[2] = NULL;
	EXPECT_EQ(0, obs(run(argv, envp, &out, &len)));
	EXPECT_TRUE(echo_is(out, len, argv, envp));
	free(out);
	argv[1] = hole - max - 1;
	EXPECT_EQ(-E2BIG, obs(run(argv, envp, &out, &len)));
	hole[-1] = 'X';
	argv[1] = hole - max;
	EXPECT_EQ(-E2BIG, obs(run(argv, envp, &out, &len)));
	argv[1] = hole - max + 1;
	EXPECT_EQ(-EFAULT, obs(run(argv, envp, &out, &len)));
}

TEST_HARNESS_MAIN
