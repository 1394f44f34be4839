# Entry points only; the work is in scripts/. See README.md.
#   make run           build the lean x86_64 kernel, boot it, show the demo
#   make shell         the same kernel with a shell on the console
#   make test          every build, every boot, every test; the verdict
#   make bench         the project-quota benchmark, counted in instructions
#   make bench-uaccess batched user access: instructions and user-access
#                      toggles per operation without and with the arch patches
#   make robot         the build robot: every patch builds on its own, W=1,
#                      sparse, allmodconfig/defconfig objects patch by patch,
#                      clang (hours)
#   make mutants       each mistake of tests/mutants must turn its tests red
#                      (hours; MUTANTS="riscv-*" narrows; docs/mutants.md)
#   make checkpatch    checkpatch.pl --strict on every patch
#   make post          each topic of patches/topics as a series of its own
#                      (cover letter, To/Cc) in build/post/TOPIC/
#   make export        write the tree's commits back to patches/
#   make series-status does the tree hold work that patches/ lacks?
# Variables: BOOTS="x86_64-test arm-test" narrows make test, and
# BOARDS="arm-raspi0 arm-zynq" narrows it to the boots on those boards;
# SELFCHECK=1 adds the negative controls; BOOT=name picks the run/shell boot;
# FORCE=1 reboots unchanged green boots; BOOT_JOBS=N boots N at a time (2);
# JOBS=N is the kernel builds' make -j (nproc + 1).

BOOT ?= x86_64-lean
export BOOTS BOARDS SELFCHECK FORCE JOBS BOOT_JOBS MUTANTS MUTANTS_AGAIN

.PHONY: run shell test bench bench-uaccess robot mutants checkpatch post export series-status clean

run:
	@scripts/setup
	@scripts/build-kernel $$(awk -v b=$(BOOT) '$$1 == b { print $$2 }' tests/boots)
	@SUITES=demo,demo-ubsan SHOW=1 scripts/boot $(BOOT)
	@scripts/booted-on

shell:
	@scripts/setup
	@scripts/build-kernel $$(awk -v b=$(BOOT) '$$1 == b { print $$2 }' tests/boots)
	@scripts/boot $(BOOT) --shell

test:
	@scripts/test

bench:
	@scripts/setup
	@scripts/build-kernel $$(awk '$$1 == "x86_64-bench" { print $$2 }' bench/boots)
	@scripts/bench

bench-uaccess:
	@scripts/setup
	@scripts/bench-uaccess riscv64
	@scripts/bench-uaccess arm
	@scripts/bench-uaccess arm-lpae

robot:
	@scripts/setup
	@scripts/robot

mutants:
	@scripts/setup
	@scripts/mutants

checkpatch:
	@scripts/tree prepare
	@scripts/checkpatch

post:
	@scripts/tree post

export:
	@scripts/tree export

series-status:
	@scripts/tree status

clean:
	rm -rf build/out build/run build/guest build/logs build/host build/results.txt build/values.txt
