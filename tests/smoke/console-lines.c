// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's own console: a suite's lines reach the host whole while
 * the kernel prints at the same time. A child floods the kernel log
 * (through /dev/kmsg, which the console prints like any printk record)
 * while this program prints its TAP results (init, and printk.devkmsg=on on
 * the command line, lift /dev/kmsg's rate limit). The serial drivers print a
 * printk record in one piece but interleave the bytes user space writes to
 * the console with printk records anywhere, so a suite line that reached
 * the console that way could be cut by a kernel line and lost to the
 * verdict; guest/init relays suite lines as kernel log records instead.
 * The check is the verdict's: each "ok N" line must arrive intact and the
 * count must match the plan, or the suite fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#define LINES	200
#define NOISE	400

static void noise(void)
{
	char rec[128];
	int fd, i, n;

	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		_exit(1);
	for (i = 0; i < NOISE; i++) {
		n = snprintf(rec, sizeof(rec),
			     "<5>console-lines: kernel log line %d of %d, printed while the suite prints",
			     i + 1, NOISE);
		if (write(fd, rec, n) != n)
			_exit(1);
	}
	_exit(0);
}

int main(void)
{
	int i, status;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%d\n", LINES + 1);
	pid = fork();
	if (pid < 0) {
		printf("Bail out! fork failed\n");
		return 1;
	}
	if (!pid)
		noise();
	for (i = 1; i <= LINES; i++)
		printf("ok %d line_%03d_of_the_suite_reaches_the_host_whole_beside_kernel_output\n",
		       i, i);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("not ok %d the_child_wrote_the_kernel_log_lines\n", i);
		return 1;
	}
	printf("ok %d the_child_wrote_the_kernel_log_lines\n", i);
	return 0;
}
