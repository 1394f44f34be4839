// SPDX-License-Identifier: GPL-2.0
/*
 * uaccess-count: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that
 * counts, between markers the guest benchmark executes, the guest
 * instructions and the user-access toggles the vCPU ran.
 *
 * This file is a HOST program, a shared object QEMU loads with -plugin. It
 * lives one folder below bench/uaccess/ because guest/Makefile compiles
 * every bench/TOPIC/NAME.c as a guest program; scripts/bench-uaccess builds
 * it with
 *
 *   gcc -shared -fPIC -O2 -o uaccess-count.so uaccess-count.c
 *
 * Debian's QEMU 7.2 is built with plugin support but ships no
 * qemu-plugin.h, so the part of the API used here is declared below, as in
 * QEMU 7.2's include/qemu/qemu-plugin.h. Run it as
 *
 *   qemu-system-... -plugin uaccess-count.so,arch=riscv64 -d plugin -D FILE
 *
 * (arch=riscv64, arm or x86_64: how the guest's instructions are decoded).
 * The counts go through qemu_plugin_outs() to QEMU's log (-d plugin), one
 * line per phase:
 *
 *   uaccess-count: phase P insns N on N off N other N
 *
 * insns   guest instructions executed from the begin marker of phase P to
 *         its end marker, by every mode (user, kernel, interrupts, other
 *         tasks), counted per translation block (per instruction in a block
 *         that holds a marker, so that the markers cut exactly)
 * on      user access enabled:
 *           riscv64  csrs/csrrs sstatus with SR_SUM (bit 18)
 *           arm      MCR writes of DACR (p15, 0, Rt, c3, c0, 0) and of
 *                    TTBCR (p15, 0, Rt, c2, c0, 2): the value is not
 *                    known when translating, so every write counts here
 *                    and "off" stays 0 (a save/enable and restore pair is
 *                    two writes)
 *           x86_64   stac
 * off     user access disabled: riscv64 csrc/csrrc sstatus with SR_SUM,
 *         x86_64 clac
 * other   riscv64 only: other writes of sstatus that can change SR_SUM
 *         (csrw/csrrw, csrs/csrc of a value with bit 18 and other bits, as
 *         the trap entry's csrrc of SR_SUM | SR_FS_VS, or of a register
 *         whose value is not known within the translation block)
 *
 * The value of the register a csrs/csrc writes is found from the
 * instructions before it in the same translation block (lui, addi, c.li,
 * c.lui, c.addi, c.mv) or, when the compiler loaded SR_SUM ("lui rd, 0x40")
 * earlier, e.g. before a loop, by walking back through the kernel
 * instructions translated so far, in address order, to the last one that
 * writes the register (code never translated never ran and is skipped):
 * the same heuristic as reading the disassembly. A csr instruction still
 * unresolved is tried again each time it runs, and counts as "other" until
 * it is resolved; "other" also holds the csrs of local_irq_restore(),
 * whose value (flags & SR_IE) is computed. The heuristic errs in one known
 * place: the series' __asm_copy_to_user_sum_enabled() enters the copy loop
 * of __asm_copy_to_user() with t6 = 0, and the csrc of t6 on the way out
 * resolves to the SR_SUM that the other entry loads, so every
 * unsafe_copy_to_user() or unsafe_copy_from_user() inside a window counts
 * one "off" that clears nothing ("on" is exact).
 *
 * Markers: an instruction that is a no-op on the architecture and that
 * nothing else executes (scripts/bench-uaccess checks that vmlinux holds
 * none), with an 8-bit argument M: M = 2 * P begins phase P, M = 2 * P + 1
 * ends it and prints its counts.
 *
 *   riscv64  slti x0, x0, 0x700 + M       (a HINT: writes x0)
 *   arm      hint #0x80 + M, M < 64, i.e. 0xe320f080 + M in ARM state (a
 *            reserved hint that executes as a NOP)
 *   x86_64   nopl 0x5a5a0000 + M(%rax)     (0f 1f 80 M 00 5a 5a)
 *
 * Profile (argument symbols=FILE, the kernel's System.map): every guest
 * instruction also counts for the kernel function it belongs to (a text
 * symbol of FILE, up to the next one), "[user]" below the first symbol's
 * address or "[other]" above the last. Each phase adds its counts to a
 * table of its own over every begin/end pair of markers it runs, and at
 * exit the plugin prints, per phase that ran, its runs and total and the
 * PROFILE_TOP functions with the most instructions:
 *
 *   uaccess-count: profile phase P runs R insns N
 *   uaccess-count: profile phase P sym NAME insns N
 *
 * The counters are plain inline adds: run the guest with one vCPU.
 */
#define _GNU_SOURCE	/* qsort_r() */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From QEMU 7.2 include/qemu/qemu-plugin.h, API version 1. */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
/* End of the declarations from qemu-plugin.h. */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

enum arch { ARCH_RISCV64, ARCH_ARM, ARCH_X86_64 };

enum counter { C_INSNS, C_ON, C_OFF, C_OTHER, NR_COUNTERS };

/* Not a counter: classify when executed (see struct deferred). */
#define C_DEFER	100

static enum arch arch;
static uint64_t count[NR_COUNTERS];
static uint64_t begin[NR_COUNTERS];
static int open_phase = -1;
static uint64_t stray_markers;

/* Profile: see the comment at the top. */
#define PROFILE_TOP	400
#define MAX_PHASES	128

struct sym {
	uint64_t addr;
	char *name;
};

static struct sym *syms;
static size_t nsyms;		/* buckets: syms, then [user] and [other] */
static uint64_t *symcount, *symbegin;
static uint64_t *phase_prof[MAX_PHASES];
static uint64_t phase_runs[MAX_PHASES];

static int load_symbols(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nsyms && addr < syms[nsyms - 1].addr)
			continue;		/* System.map is sorted */
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 4096;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				return -1;
		}
		syms[nsyms].addr = addr;
		syms[nsyms].name = strdup(name);
		nsyms++;
	}
	fclose(f);
	if (!nsyms)
		return -1;
	symcount = calloc(nsyms + 2, sizeof(*symcount));
	symbegin = calloc(nsyms + 2, sizeof(*symbegin));
	return symcount && symbegin ? 0 : -1;
}

/* The bucket of an address: a symbol's index, nsyms [user], nsyms + 1. */
static size_t sym_bucket(uint64_t vaddr)
{
	size_t lo = 0, hi = nsyms;

	if (vaddr < syms[0].addr)
		return nsyms;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	/* past the last symbol (_etext and the like end the text) */
	return lo == nsyms - 1 ? nsyms + 1 : lo;
}

static const char *bucket_name(size_t b)
{
	return b < nsyms ? syms[b].name : b == nsyms ? "[user]" : "[other]";
}

static void profile_end(int phase)
{
	size_t i;

	if (phase < 0 || phase >= MAX_PHASES)
		return;
	if (!phase_prof[phase])
		phase_prof[phase] = calloc(nsyms + 2, sizeof(uint64_t));
	if (!phase_prof[phase])
		return;
	for (i = 0; i < nsyms + 2; i++)
		phase_prof[phase][i] += symcount[i] - symbegin[i];
	phase_runs[phase]++;
}

static int cmp_desc(const void *a, const void *b, void *prof)
{
	uint64_t x = ((uint64_t *)prof)[*(const size_t *)a];
	uint64_t y = ((uint64_t *)prof)[*(const size_t *)b];

	return x > y ? -1 : x < y;
}

static void profile_print(void)
{
	size_t *order = calloc(nsyms + 2, sizeof(*order)), i;
	char buf[512];
	int p;

	if (!order)
		return;
	for (p = 0; p < MAX_PHASES; p++) {
		uint64_t total = 0;

		if (!phase_prof[p])
			continue;
		for (i = 0; i < nsyms + 2; i++) {
			order[i] = i;
			total += phase_prof[p][i];
		}
		qsort_r(order, nsyms + 2, sizeof(*order), cmp_desc, phase_prof[p]);
		snprintf(buf, sizeof(buf),
			 "uaccess-count: profile phase %d runs %" PRIu64 " insns %" PRIu64 "\n",
			 p, phase_runs[p], total);
		qemu_plugin_outs(buf);
		for (i = 0; i < PROFILE_TOP && i < nsyms + 2 && phase_prof[p][order[i]]; i++) {
			snprintf(buf, sizeof(buf),
				 "uaccess-count: profile phase %d sym %s insns %" PRIu64 "\n",
				 p, bucket_name(order[i]), phase_prof[p][order[i]]);
			qemu_plugin_outs(buf);
		}
	}
	free(order);
}

#define SR_SUM		0x40000ULL
#define CSR_SSTATUS	0x100
#define MARK_NONE	-1

static void print_counts(const char *what, const uint64_t *c)
{
	char buf[256];

	snprintf(buf, sizeof(buf),
		 "uaccess-count: %s insns %" PRIu64 " on %" PRIu64
		 " off %" PRIu64 " other %" PRIu64 "\n", what,
		 c[C_INSNS], c[C_ON], c[C_OFF], c[C_OTHER]);
	qemu_plugin_outs(buf);
}

static void marker(unsigned int vcpu, void *udata)
{
	int m = (int)(uintptr_t)udata;
	int phase = m / 2;
	uint64_t delta[NR_COUNTERS];
	char what[32];
	int i;

	if (!(m & 1)) {
		memcpy(begin, count, sizeof(begin));
		if (nsyms)
			memcpy(symbegin, symcount, (nsyms + 2) * sizeof(*symcount));
		open_phase = phase;
		return;
	}
	if (open_phase != phase) {
		/* An end without its begin: say so instead of a count. */
		stray_markers++;
		snprintf(what, sizeof(what), "phase %d stray-end", phase);
		qemu_plugin_outs("uaccess-count: ");
		qemu_plugin_outs(what);
		qemu_plugin_outs("\n");
		return;
	}
	for (i = 0; i < NR_COUNTERS; i++)
		delta[i] = count[i] - begin[i];
	if (nsyms)
		profile_end(phase);
	snprintf(what, sizeof(what), "phase %d", phase);
	print_counts(what, delta);
	open_phase = -1;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Known register values within one translation block (riscv64). */
struct regs {
	uint32_t known;
	uint64_t val[32];
};

static void reg_set(struct regs *r, unsigned int rd, uint64_t v)
{
	if (!rd)
		return;
	r->known |= 1u << rd;
	r->val[rd] = v;
}

static void reg_forget(struct regs *r, unsigned int rd)
{
	if (rd)
		r->known &= ~(1u << rd);
}

static bool reg_get(const struct regs *r, unsigned int rs, uint64_t *v)
{
	if (!rs) {
		*v = 0;
		return true;
	}
	if (!(r->known & (1u << rs)))
		return false;
	*v = r->val[rs];
	return true;
}

static int64_t sext(uint64_t v, int bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* A 16-bit (RVC) instruction: track what the kernel uses to load constants. */
static void rv_insn16(struct regs *r, uint16_t w)
{
	unsigned int op = w & 3, f3 = w >> 13;
	unsigned int rd = (w >> 7) & 31, rs2 = (w >> 2) & 31;
	int64_t imm6 = sext(((w >> 7) & 0x20) | ((w >> 2) & 0x1f), 6);
	uint64_t v;

	if (op == 1 && f3 == 2) {			/* c.li */
		reg_set(r, rd, imm6);
	} else if (op == 1 && f3 == 3 && rd != 2) {	/* c.lui */
		reg_set(r, rd, (uint64_t)(imm6 << 12));
	} else if (op == 1 && f3 == 0) {		/* c.addi */
		if (reg_get(r, rd, &v))
			reg_set(r, rd, v + imm6);
		else
			reg_forget(r, rd);
	} else if (op == 1 && f3 == 1) {		/* c.addiw */
		if (reg_get(r, rd, &v))
			reg_set(r, rd, sext((uint32_t)(v + imm6), 32));
		else
			reg_forget(r, rd);
	} else if (op == 2 && f3 == 4 && !(w & 0x1000) && rs2) { /* c.mv */
		if (reg_get(r, rs2, &v))
			reg_set(r, rd, v);
		else
			reg_forget(r, rd);
	} else if (op == 2 && f3 == 4 && rs2 == 0) {	/* c.jr, c.jalr */
		if (w & 0x1000)
			reg_forget(r, 1);
	} else if (op == 2 && f3 <= 3) {	/* c.slli, c.*lsp, c.add */
		reg_forget(r, rd);
	} else if (op == 2 && f3 == 4) {	/* c.add */
		reg_forget(r, rd);
	} else if (op == 0 && f3 <= 3) {	/* c.addi4spn, c.l* */
		reg_forget(r, 8 + ((w >> 2) & 7));
	} else if (op == 1 && f3 == 4) {	/* c.srli/srai/andi/sub/... */
		reg_forget(r, 8 + ((w >> 7) & 7));
	}
	/* Stores, c.j, c.beqz, c.bnez write no register. */
}

/*
 * Kernel instructions translated so far, by address: the value of a register
 * a csr instruction writes may come from a lui before a loop, in another
 * translation block, which has been translated (and run) before.
 */
#define MAP_SIZE	(1u << 21)

static struct {
	uint64_t vaddr;
	uint32_t word;
	uint32_t size;
} map[MAP_SIZE];

static uint32_t map_slot(uint64_t vaddr)
{
	return (uint32_t)((vaddr >> 1) * 0x9e3779b97f4a7c15ULL >> 43) &
	       (MAP_SIZE - 1);
}

static void map_add(uint64_t vaddr, uint32_t word, uint32_t size)
{
	uint32_t i = map_slot(vaddr), n;

	for (n = 0; n < 64; n++, i = (i + 1) & (MAP_SIZE - 1)) {
		if (!map[i].size || map[i].vaddr == vaddr) {
			map[i].vaddr = vaddr;
			map[i].word = word;
			map[i].size = size;
			return;
		}
	}
}

static bool map_get(uint64_t vaddr, uint32_t size, uint32_t *word)
{
	uint32_t i = map_slot(vaddr), n;

	for (n = 0; n < 64 && map[i].size; n++, i = (i + 1) & (MAP_SIZE - 1)) {
		if (map[i].vaddr == vaddr) {
			*word = map[i].word;
			return map[i].size == size;
		}
	}
	return false;
}

static int rv_insn32(struct regs *r, uint32_t w, uint64_t vaddr);

static void rv_apply(struct regs *r, uint32_t w, uint32_t size)
{
	if (size == 2)
		rv_insn16(r, w);
	else
		rv_insn32(r, w, 0);
}

/*
 * Walk back from vaddr through the instructions before it in memory that
 * have been translated, to the last one that writes register rs: the value
 * if that loads a constant. Addresses never translated were never run and
 * cannot have changed the register; they are skipped, up to 2 KiB back.
 */
static bool rv_resolve(uint64_t vaddr, unsigned int rs, uint64_t *v)
{
	uint64_t a, floor = vaddr;
	uint32_t w, size;
	int i;

	for (a = vaddr - 2; vaddr - a <= 2048; a -= 2) {
		struct regs cst = { 0 }, all;

		if (map_get(a, 2, &w))
			size = 2;
		else if (map_get(a, 4, &w))
			size = 4;
		else
			continue;
		if (a + size > floor)
			continue;
		floor = a;
		rv_apply(&cst, w, size);
		if (cst.known & (1u << rs)) {
			*v = cst.val[rs];
			return true;
		}
		all.known = ~0u;
		for (i = 0; i < 32; i++)
			all.val[i] = 1000 + i;
		rv_apply(&all, w, size);
		if (!(all.known & (1u << rs)) || all.val[rs] != 1000 + rs)
			return false;
	}
	return false;
}

/* Classify a 32-bit instruction, tracking constants; returns a counter. */
static int rv_insn32(struct regs *r, uint32_t w, uint64_t vaddr)
{
	unsigned int opc = w & 0x7f, rd = (w >> 7) & 31, f3 = (w >> 12) & 7;
	unsigned int rs1 = (w >> 15) & 31, csr = w >> 20;
	int64_t imm12 = sext(w >> 20, 12);
	uint64_t v;
	bool known;

	switch (opc) {
	case 0x37:					/* lui */
		reg_set(r, rd, (uint64_t)sext(w & 0xfffff000, 32));
		return -1;
	case 0x13:
		if (f3 == 0 && reg_get(r, rs1, &v))	/* addi */
			reg_set(r, rd, v + imm12);
		else
			reg_forget(r, rd);
		return -1;
	case 0x23: case 0x27: case 0x63: case 0x0f:	/* no rd */
		return -1;
	case 0x73:
		break;
	default:
		reg_forget(r, rd);
		return -1;
	}
	if (f3 == 0 || f3 == 4)				/* ecall, sret, ... */
		return -1;
	reg_forget(r, rd);
	if (csr != CSR_SSTATUS)
		return -1;
	if (f3 == 1 || f3 == 5)				/* csrrw, csrrwi */
		return C_OTHER;
	if (f3 >= 5)			/* csrrsi, csrrci: 5 bits, no SR_SUM */
		return -1;
	if (rs1 == 0)					/* csrr */
		return -1;
	known = reg_get(r, rs1, &v);
	if (!known && vaddr) {
		known = rv_resolve(vaddr, rs1, &v);
		if (!known)
			return C_DEFER;
	}
	if (known && !(v & SR_SUM))
		return -1;
	if (!known || v != SR_SUM)
		return C_OTHER;
	return f3 == 2 ? C_ON : C_OFF;
}

/*
 * A csrs/csrc of sstatus whose register was not resolved at translation:
 * the instructions that load it may run (and be translated) only after the
 * first translation, as the path back into a loop. Try again when it runs,
 * until the value is found; until then it counts as "other".
 */
struct deferred {
	uint64_t vaddr;
	unsigned int rs1, f3;
	int cls;		/* -1 not resolved yet, -2 not SR_SUM */
};

static void deferred_exec(unsigned int vcpu, void *udata)
{
	struct deferred *d = udata;
	uint64_t v;

	if (d->cls == -1 && rv_resolve(d->vaddr, d->rs1, &v)) {
		if (v == SR_SUM)
			d->cls = d->f3 == 2 ? C_ON : C_OFF;
		else
			d->cls = v & SR_SUM ? C_OTHER : -2;
	}
	if (d->cls == -1)
		count[C_OTHER]++;
	else if (d->cls >= 0)
		count[d->cls]++;
}

/* Marker argument of an instruction, or MARK_NONE. */
static int marker_of(const uint8_t *p, size_t size)
{
	uint32_t w;

	switch (arch) {
	case ARCH_RISCV64:
		if (size != 4)
			return MARK_NONE;
		w = le32(p);
		/* slti x0, x0, 0x7MM */
		if ((w & 0xfffff) != 0x02013 || (w >> 28) != 7)
			return MARK_NONE;
		return (w >> 20) & 0xff;
	case ARCH_ARM:
		if (size != 4)
			return MARK_NONE;
		w = le32(p);
		if ((w & 0xffffffc0) != 0xe320f080)
			return MARK_NONE;
		return w & 0x3f;
	case ARCH_X86_64:
		if (size != 7 || p[0] != 0x0f || p[1] != 0x1f || p[2] != 0x80 ||
		    p[4] != 0 || p[5] != 0x5a || p[6] != 0x5a)
			return MARK_NONE;
		return p[3];
	}
	return MARK_NONE;
}

static int arm_class(const uint8_t *p, size_t size)
{
	uint32_t w, t;

	if (size != 4)
		return -1;
	/* ARM state: cond 1110 opc1 0 CRn Rt 1111 opc2 1 CRm. */
	w = le32(p);
	/* Thumb-2: the same fields, first halfword first. */
	t = (uint32_t)(p[0] | p[1] << 8) << 16 | (p[2] | p[3] << 8);
	if ((w & 0x0fff0fff) == 0x0e030f10 || (w & 0x0fff0fff) == 0x0e020f50)
		return C_ON;
	if ((t & 0xffff0fff) == 0xee030f10 || (t & 0xffff0fff) == 0xee020f50)
		return C_ON;
	return -1;
}

static int x86_class(const uint8_t *p, size_t size)
{
	if (size != 3 || p[0] != 0x0f || p[1] != 0x01)
		return -1;
	if (p[2] == 0xcb)
		return C_ON;				/* stac */
	if (p[2] == 0xca)
		return C_OFF;				/* clac */
	return -1;
}

/*
 * Count a translation block's instructions for their functions: one add
 * per block when it lies in one function (and holds no marker, whose
 * instructions must count only once they ran), else one per instruction.
 */
static void profile_tb(struct qemu_plugin_tb *tb, size_t n, bool has_marker)
{
	size_t first = sym_bucket(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)));
	size_t last = sym_bucket(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, n - 1)));
	size_t i;

	if (first == last && !has_marker) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &symcount[first], n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64,
				&symcount[sym_bucket(qemu_plugin_insn_vaddr(insn))], 1);
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct regs regs = { 0 };
	bool has_marker = false;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (marker_of(qemu_plugin_insn_data(insn),
			      qemu_plugin_insn_size(insn)) != MARK_NONE)
			has_marker = true;
	}
	if (!has_marker)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &count[C_INSNS], n);
	if (nsyms)
		profile_tb(tb, n, has_marker);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *p = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		uint32_t w;
		int c = -1, m;

		if (has_marker)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &count[C_INSNS], 1);
		m = marker_of(p, size);
		if (m != MARK_NONE) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)m);
			continue;
		}
		switch (arch) {
		case ARCH_RISCV64:
			if (size == 2) {
				w = p[0] | p[1] << 8;
				rv_insn16(&regs, w);
			} else if (size == 4) {
				w = le32(p);
				c = rv_insn32(&regs, w, vaddr);
			}
			if ((size == 2 || size == 4) && (vaddr >> 63))
				map_add(vaddr, w, size);
			break;
		case ARCH_ARM:
			c = arm_class(p, size);
			break;
		case ARCH_X86_64:
			c = x86_class(p, size);
			break;
		}
		if (c == C_DEFER) {
			struct deferred *d = calloc(1, sizeof(*d));

			if (!d)
				continue;
			d->vaddr = vaddr;
			d->rs1 = (w >> 15) & 31;
			d->f3 = (w >> 12) & 7;
			d->cls = -1;
			qemu_plugin_register_vcpu_insn_exec_cb(insn, deferred_exec,
				QEMU_PLUGIN_CB_NO_REGS, d);
		} else if (c >= 0) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &count[c], 1);
		}
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char buf[64];

	print_counts("total", count);
	if (nsyms)
		profile_print();
	snprintf(buf, sizeof(buf), "uaccess-count: stray-markers %" PRIu64 "\n",
		 stray_markers);
	qemu_plugin_outs(buf);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *a = info->target_name;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "arch=", 5))
			a = argv[i] + 5;
		if (!strncmp(argv[i], "symbols=", 8) && load_symbols(argv[i] + 8)) {
			fprintf(stderr, "uaccess-count: no text symbols in %s\n",
				argv[i] + 8);
			return -1;
		}
	}
	if (!strcmp(a, "riscv64")) {
		arch = ARCH_RISCV64;
	} else if (!strcmp(a, "arm")) {
		arch = ARCH_ARM;
	} else if (!strcmp(a, "x86_64")) {
		arch = ARCH_X86_64;
	} else {
		fprintf(stderr, "uaccess-count: unknown architecture %s\n", a);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
