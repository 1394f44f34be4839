/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers of the benchmarks that the QEMU plugin
 * bench/uaccess/plugin/uaccess-count.c counts between: one instruction
 * each that is a no-op, whose 8-bit argument M is a constant in the
 * instruction; M = 2 * P begins phase P, M = 2 * P + 1 ends it.
 * bench_mark(M) executes marker M, for M < MARKS (others: nothing).
 * Without the plugin they cost one instruction.
 */
#ifndef BENCH_MARKER_H
#define BENCH_MARKER_H

#if defined(__riscv)
#define MARK(m)	do { \
	asm volatile("slti x0, x0, %0" : : "i" (0x700 + (m)) : "memory"); \
} while (0)
#define MARK_ATTR
#elif defined(__arm__)
/* hint #0x80 + m (reserved, a NOP) exists in ARM state only. */
#define MARK(m)	do { \
	asm volatile(".inst 0xe320f080 + %c0" : : "i" (m) : "memory"); \
} while (0)
#define MARK_ATTR __attribute__((target("arm")))
#elif defined(__x86_64__)
#define MARK(m)	do { \
	asm volatile("nopl %c0(%%rax)" : : "i" (0x5a5a0000 + (m)) : "memory"); \
} while (0)
#define MARK_ATTR
#else
#error "no marker for this architecture"
#endif

#define MARKS	32

#define MARK_CASE(m)	case (m): MARK(m); break
#define MARK_CASE4(m)	MARK_CASE(m); MARK_CASE((m) + 1); \
			MARK_CASE((m) + 2); MARK_CASE((m) + 3)

static MARK_ATTR __attribute__((noinline, unused)) void bench_mark(int m)
{
	switch (m) {
	MARK_CASE4(0);
	MARK_CASE4(4);
	MARK_CASE4(8);
	MARK_CASE4(12);
	MARK_CASE4(16);
	MARK_CASE4(20);
	MARK_CASE4(24);
	MARK_CASE4(28);
	}
}

#endif /* BENCH_MARKER_H */
