/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's protocol between the host and the guest: what the host
 * puts on the kernel command line, and what the console log holds. The
 * guest's init (guest/init.c) and helpers (guest/guest.c) write the log,
 * the host's verdict (scripts/verdict/) is the one program that reads it;
 * all three take the strings below from this header. This comment is the
 * protocol's description; the verdict's cases are described in
 * scripts/verdict/verdict.h.
 *
 * Kernel command line (scripts/boot writes it, init reads it):
 *
 *   harness.suites=a,b,c   run /tests/a, /tests/b, /tests/c in that order;
 *                          a suite NAME@M runs /tests/NAME with the
 *                          argument /mnt/M (one program on several
 *                          filesystems in one boot)
 *   harness.timeout=S      per-suite timeout in seconds (default 300)
 *   harness.mounts=M,...   before the suites, mount each M = NAME:TYPE:OPTS
 *                          on /mnt/NAME: the virtio disk whose serial is
 *                          NAME, or a fresh instance for tmpfs (options are
 *                          separated by '+' instead of ',')
 *   harness.chroot=SERIAL  mount the virtio disk with that serial (ext4) on
 *                          /debian and run the suites chrooted into it, as
 *                          /harness/NAME
 *   harness.shell=1        after the suites, start /bin/sh on the console
 *   harness.halt=1         end with a halt, not a reboot (boards whose
 *                          reset QEMU lacks or the kernel gets wrong; the
 *                          host stops QEMU at the kernel's "System halted")
 *   harness.negative=N,... a test's negative control (guest_negative_control())
 *
 * The console log. Lines may end in "\r\n". Kernel log lines start with a
 * timestamp "[    1.234567] " (maybe followed by a caller id "[    T1]").
 * Everything the guest says is a kernel log record too, written to
 * /dev/kmsg, so that it carries a timestamp and no kernel line can land
 * inside it on the console (the verdict fails case "console
 * kernel_line_inside_a_guest_line" if one does). Three kinds of line:
 *
 * Markers: the text starts with the word "harness:" (HARNESS_MARKER).
 *
 *   harness: banner TEXT                     Linux version, package, patches
 *   harness: module NAME loaded              a module of /etc/harness-modules
 *   harness: module NAME failed: ERROR       (one that fails fails the boot)
 *   harness: suite NAME begin
 *   harness: suite NAME end status=S seconds=T
 *                                            S: exit code, 128+signal,
 *                                            "timeout" or "pipe"
 *   harness: expect splat: SUBSTRING         a test is about to provoke a
 *                                            splat that holds SUBSTRING
 *                                            (guest_expect_splat())
 *   harness: end status=N                    the last line before power-off;
 *                                            N: suites that did not exit 0
 *
 * Other "harness: ..." lines (mounts, errors of init's own) are markers
 * the verdict reads no further. Every marker ends the announcement before
 * it, and any KUnit suite still open.
 *
 * Relayed lines: "NAME| LINE" (HARNESS_RELAY_SEP), every line suite NAME
 * printed, between its begin and end markers. NAME is the suite's name as
 * in harness.suites= (letters, digits and HARNESS_NAME_CHARS). A suite's
 * output is TAP 13 / KTAP: the verdict reads its plan "1..N" and its
 * top-level "ok N name" / "not ok N name" lines (with an optional "# SKIP",
 * "# TODO" or "# XFAIL" directive); indented lines are its own.
 *
 * A suite's line "# value KEY TEXT" (HARNESS_VALUE, guest_value()) is a
 * value for the host: a digest of what the suite saw, a benchmark figure.
 * The verdict writes it to its values file as "ARCH CONFIG SUITE KEY TEXT"
 * (scripts/test compares the uaccess suites' "digest" across boots,
 * scripts/bench and bench-uaccess make their tables of the figures); it
 * is neither a case nor a comment.
 *
 * Kernel lines: everything else, including KUnit's KTAP and the splats.
 *
 * The host adds lines of its own that start with "harness-host:" (the
 * board and image booted, QEMU's exit status); they have no timestamp.
 */
#ifndef HARNESS_PROTOCOL_H
#define HARNESS_PROTOCOL_H

/* A marker line's first word; the words that can follow it. */
#define HARNESS_MARKER		"harness:"
#define HARNESS_BANNER		"banner"
#define HARNESS_MODULE		"module"
#define HARNESS_LOADED		"loaded"
#define HARNESS_FAILED		"failed:"
#define HARNESS_SUITE		"suite"
#define HARNESS_BEGIN		"begin"
#define HARNESS_END		"end"
#define HARNESS_STATUS		"status="
#define HARNESS_SECONDS		"seconds="
#define HARNESS_EXPECT_SPLAT	"expect splat:"

/* The markers as the guest prints them (printf formats). */
#define HARNESS_FMT_BANNER	HARNESS_MARKER " " HARNESS_BANNER " %s"
#define HARNESS_FMT_MODULE_OK	HARNESS_MARKER " " HARNESS_MODULE " %s " HARNESS_LOADED
#define HARNESS_FMT_MODULE_FAIL	HARNESS_MARKER " " HARNESS_MODULE " %s " HARNESS_FAILED " %s"
#define HARNESS_FMT_SUITE_BEGIN	HARNESS_MARKER " " HARNESS_SUITE " %s " HARNESS_BEGIN
/* the status is a string here: a number, "timeout" or "pipe" */
#define HARNESS_FMT_SUITE_END	HARNESS_MARKER " " HARNESS_SUITE " %s " HARNESS_END \
				" " HARNESS_STATUS "%s " HARNESS_SECONDS "%.3f"
#define HARNESS_FMT_EXPECT	HARNESS_MARKER " " HARNESS_EXPECT_SPLAT " %s"
#define HARNESS_FMT_END		HARNESS_MARKER " " HARNESS_END " " HARNESS_STATUS "%d"

/* A suite's value for the host: this, a key, the value. */
#define HARNESS_VALUE		"# value "

/* A relayed line: suite name, then this, then the suite's line. */
#define HARNESS_RELAY_SEP	"| "
/* Besides letters and digits, the characters of a suite name. */
#define HARNESS_NAME_CHARS	"_.+-@:/"
/* NAME@M: suite NAME run on /mnt/M */
#define HARNESS_AT		'@'

/* The kernel command line's parameters: "harness.KEY=VALUE". */
#define HARNESS_PARAM		"harness."

#endif
