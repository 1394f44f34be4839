// SPDX-License-Identifier: GPL-2.0
/*
 * make run's demo: what this kernel is and which patches it carries. Later
 * features of the series add their own scenes here.
 */
#include <stdio.h>
#include <sys/utsname.h>

int main(void)
{
	char line[1024];
	struct utsname u;
	FILE *f;

	if (uname(&u))
		return 1;
	printf("Linux %s %s %s\n", u.release, u.version, u.machine);
	f = fopen("/etc/harness-banner", "r");
	if (!f)
		return 1;
	printf("Built from:\n");
	while (fgets(line, sizeof(line), f))
		printf("  %s", line);
	fclose(f);
	return 0;
}
