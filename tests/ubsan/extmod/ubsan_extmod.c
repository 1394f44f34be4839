// SPDX-License-Identifier: GPL-2.0
/*
 * An out-of-tree module that fails UBSAN array bounds checks on demand,
 * for tests/ubsan/ubsan-extmod.c: suppressing the reports of a module
 * built outside the tree by its name, by a function or by its file,
 * whose path in the reports is wherever the module was built.
 *
 *   insmod ubsan_extmod.ko fail_at_load=1   one failure in ubsan_extmod_fail(),
 *                                           from the module's init
 *   /sys/module/ubsan_extmod/parameters/fail        write N: N failures in
 *                                                   ubsan_extmod_fail()
 *   /sys/module/ubsan_extmod/parameters/fail_other  write N: N failures, at a
 *                                     site of its own, in ubsan_extmod_fail_other()
 *   /sys/module/ubsan_extmod/parameters/fail_last   write N: N divide check
 *                                     failures in ubsan_extmod_fail_last(),
 *                                     called from kernel code
 *   /sys/module/ubsan_extmod/parameters/pass        write N: N checks that
 *                                     pass (a baseline for counting the cost
 *                                     of a failed check: compare with fail)
 *
 * Each failure is one failed check at one site, without the bad access
 * (bounds checks, but for fail_last):
 * the array has a neighbour in its struct, so KASAN stays quiet.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>

static struct {
	int data[4];
	int after;
} ubsan_extmod_array;

static int ubsan_extmod_sink;

/* global and without arguments: no clone renames them in kallsyms */
void ubsan_extmod_fail(void);
void ubsan_extmod_fail_other(void);
void ubsan_extmod_pass(void);

noinline void ubsan_extmod_fail(void)
{
	int index = ARRAY_SIZE(ubsan_extmod_array.data);

	OPTIMIZER_HIDE_VAR(index);
	WRITE_ONCE(ubsan_extmod_sink, ubsan_extmod_array.data[index]);
}

noinline void ubsan_extmod_fail_other(void)
{
	int index = ARRAY_SIZE(ubsan_extmod_array.data);

	OPTIMIZER_HIDE_VAR(index);
	WRITE_ONCE(ubsan_extmod_sink, ubsan_extmod_array.data[index]);
}

noinline void ubsan_extmod_pass(void)
{
	int index = ARRAY_SIZE(ubsan_extmod_array.data) - 1;

	OPTIMIZER_HIDE_VAR(index);
	WRITE_ONCE(ubsan_extmod_sink, ubsan_extmod_array.data[index]);
}

/*
 * Its failed check is the last thing it does: GCC moves the handler's
 * call to ubsan_extmod_fail_last.cold and makes it a tail call there (a
 * jump), so that the handler returns to the caller of this function,
 * which is kernel code (smp_call_function_single() on this CPU), not the
 * module. A divide check: the division that would trap is unused, and
 * goes.
 */
static void ubsan_extmod_fail_last(void *unused)
{
	int value = 1, divisor = 0;

	OPTIMIZER_HIDE_VAR(divisor);
	value /= divisor;
	(void)value;
}

/* "N": fail the check in ubsan_extmod_fail_last() N times, called from the kernel */
static int ubsan_extmod_run_last(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	for (i = 0; !ret && i < n; i++)
		ret = smp_call_function_single(raw_smp_processor_id(),
					       ubsan_extmod_fail_last, NULL, 1);
	return ret;
}

static const struct kernel_param_ops ubsan_extmod_last_ops = {
	.set = ubsan_extmod_run_last,
};

/* "N": call the function the parameter names N times */
static int ubsan_extmod_run(const char *val, const struct kernel_param *kp)
{
	void (*fn)(void) = kp->arg;
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		fn();
	return 0;
}

static const struct kernel_param_ops ubsan_extmod_ops = {
	.set = ubsan_extmod_run,
};

module_param_cb(fail, &ubsan_extmod_ops, ubsan_extmod_fail, 0200);
MODULE_PARM_DESC(fail, "N: fail the check in ubsan_extmod_fail() N times");
module_param_cb(fail_other, &ubsan_extmod_ops, ubsan_extmod_fail_other, 0200);
MODULE_PARM_DESC(fail_other, "N: fail the check in ubsan_extmod_fail_other() N times");
module_param_cb(fail_last, &ubsan_extmod_last_ops, NULL, 0200);
MODULE_PARM_DESC(fail_last, "N: fail the check that ends ubsan_extmod_fail_last() N times");
module_param_cb(pass, &ubsan_extmod_ops, ubsan_extmod_pass, 0200);
MODULE_PARM_DESC(pass, "N: pass a bounds check N times");

static bool fail_at_load;
module_param(fail_at_load, bool, 0);
MODULE_PARM_DESC(fail_at_load, "fail the check in ubsan_extmod_fail() once at load");

static int __init ubsan_extmod_init(void)
{
	if (fail_at_load)
		ubsan_extmod_fail();
	return 0;
}
module_init(ubsan_extmod_init);

static void __exit ubsan_extmod_exit(void)
{
}
module_exit(ubsan_extmod_exit);

MODULE_DESCRIPTION("Fails UBSAN bounds checks on demand, from outside the tree");
MODULE_LICENSE("GPL");
