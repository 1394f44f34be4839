# Common settings for the host scripts. Sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux
# scripts/mutants builds and boots a mutated kernel in folders of its own
OUT=${HARNESS_OUT:-$BUILD/out}
LOGS=${HARNESS_LOGS:-$BUILD/logs}
RUNS=${HARNESS_RUNS:-$BUILD/run}
PATCHES=$TOP/patches
PRISTINE_TAG=pristine
SRC_PKG=linux-source-6.12
SRC_TARBALL=/usr/src/$SRC_PKG.tar.xz
JOBS=${JOBS:-$(($(nproc) + 1))}

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "==> $*" >&2
}

# Version of the Debian package the tree comes from, as apt installed it.
src_pkg_version() {
	dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null
}

tgit() {
	git -C "$TREE" "$@"
}

# Names of the patches in patches/series, in order, without comments.
series_patches() {
	[ -f "$PATCHES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series"
}

# Hash of the series as committed in patches/.
series_hash() {
	(
		cd "$PATCHES" || exit 1
		cat series 2>/dev/null
		series_patches | while read -r p; do cat "$p"; done
	) | sha256sum | cut -c1-16
}

# A data file of "key value..." lines: print the fields of the line whose
# first field is $2.
table_row() {
	sed -e 's/#.*//' "$1" | awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; f = 1 } END { exit !f }'
}

table_keys() {
	sed -e 's/#.*//' "$1" | awk 'NF { print $1 }'
}

# Per-architecture toolchain data: kernel ARCH, its folder under arch/,
# CROSS_COMPILE, boot image.
arch_vars() {
	case "$1" in
	x86_64)
		KARCH=x86_64 SRCARCH=x86 CROSS= KIMAGE=arch/x86/boot/bzImage ;;
	riscv64)
		KARCH=riscv SRCARCH=riscv CROSS=riscv64-linux-gnu- KIMAGE=arch/riscv/boot/Image ;;
	arm)
		KARCH=arm SRCARCH=arm CROSS=arm-linux-gnueabi- KIMAGE=arch/arm/boot/zImage ;;
	*)
		die "unknown architecture $1" ;;
	esac
}

# A boot's suites (tests/boots, bench/boots, SUITES=) with every @NAME
# replaced, in place, by the suites of set NAME in tests/suites
# ("NAME = a,b,@OTHER" lines).
suites_expand() {
	local depth=${2:-0} out='' s members items

	[ "$depth" -lt 8 ] || die "tests/suites: sets nested too deep: $1"
	IFS=, read -ra items <<<"$1"
	for s in "${items[@]}"; do
		if [ "${s#@}" != "$s" ]; then
			members=$(sed -e 's/#.*//' "$TOP/tests/suites" | awk -v k="${s#@}" '
				{ n = index($0, "="); if (!n) next
				  name = substr($0, 1, n - 1); gsub(/[ \t]/, "", name)
				  if (name != k) next
				  v = substr($0, n + 1); gsub(/[ \t]/, "", v); print v; f = 1 }
				END { exit !f }') || die "no suite set ${s#@} in tests/suites"
			# (errexit does not reach into $(...): stop here)
			s=$(suites_expand "$members" $((depth + 1))) || exit 1
		fi
		out=${out:+$out,}$s
	done
	echo "$out"
}

# A board of boards/, a file of shell variables, one fact each:
#   QEMU          the QEMU binary (qemu-system-ARCH)
#   MACHINE       -M (with its properties: virt,highmem=off)
#   CPU, SMP, MEMORY   -cpu, -smp, -m where the machine's default will not do
#   EXTRA         any other QEMU arguments of the board (-serial, -bios, ...)
#   CONSOLE       the kernel's console= device
#   BOOTARGS      more kernel arguments: earlycon on the device-tree boards
#                 (the DT's stdout-path from the first instruction, so that
#                 a panic before the serial driver probes is on the console
#                 and ends the boot at once, not at BOOT_TIMEOUT),
#                 earlycon=sbi on riscv64, what a board needs besides
#   DTB           the device tree, from the build (arch/ARCH/boot/dts/DTB)
#   MODEL         the device tree's model, which the verdict checks
#   DISK_DEVICE, SPARE_VIRTIO, PMEM, HALT   see scripts/boot
# board_vars BOARD reads one and sets QEMU_BOARD_ARGS, its QEMU arguments.
board_vars() {
	local f=$TOP/boards/$1

	[ -f "$f" ] || die "no board $1 in boards/"
	unset QEMU MACHINE CPU SMP MEMORY EXTRA CONSOLE BOOTARGS DTB MODEL \
		DISK_DEVICE SPARE_VIRTIO PMEM HALT
	# shellcheck source=../boards/x86_64
	. "$f"
	if [ -z "${QEMU:-}" ] || [ -z "${MACHINE:-}" ] || [ -z "${CONSOLE:-}" ]; then
		die "board $1: QEMU=, MACHINE= and CONSOLE= are required"
	fi
	QEMU_BOARD_ARGS=(-M "$MACHINE")
	[ -z "${CPU:-}" ] || QEMU_BOARD_ARGS+=(-cpu "$CPU")
	[ -z "${SMP:-}" ] || QEMU_BOARD_ARGS+=(-smp "$SMP")
	[ -z "${MEMORY:-}" ] || QEMU_BOARD_ARGS+=(-m "$MEMORY")
	# shellcheck disable=SC2206 # EXTRA is a list of words
	QEMU_BOARD_ARGS+=(${EXTRA:-})
}

# The compiler of a build (configs/builds, third column): gcc12 is Debian
# 12's own GCC, gcc14 Debian 13's from the build root of scripts/buildroot,
# clang Debian 12's clang and lld (LLVM=1). Sets CC_RUN, the command prefix
# that runs a command where that compiler is, and CC_MAKE, the arguments
# make needs for it; cc_version prints the compiler's version line.
cc_vars() {
	case "$1" in
	gcc12) CC_RUN=() CC_MAKE=() ;;
	gcc14) CC_RUN=("$TOP/scripts/buildroot" run) CC_MAKE=() ;;
	clang) CC_RUN=() CC_MAKE=(LLVM=1) ;;
	*) die "unknown compiler $1 (gcc12, gcc14, clang)" ;;
	esac
	CC_NAME=$1
}

cc_version() {
	case "$CC_NAME" in
	clang) clang --version | head -1 ;;
	*) "${CC_RUN[@]}" "${CROSS}gcc" --version | head -1 ;;
	esac
}

# State of the tree's source: HEAD plus any uncommitted change, new files
# with their contents.
tree_state() {
	{
		tgit rev-parse HEAD
		tgit diff HEAD
		(cd "$TREE" && git ls-files -z --others --exclude-standard |
			xargs -0r sha256sum)
	} | sha256sum | cut -c1-16
}

# build_plugin SO: the QEMU counting plugin bench/uaccess/plugin/uaccess-count.c
# (a host shared object) into SO, for scripts/bench and scripts/bench-uaccess.
build_plugin() {
	gcc -shared -fPIC -O2 -Wall -o "$1" "$TOP/bench/uaccess/plugin/uaccess-count.c"
}
