# shellcheck shell=bash
# Shared settings for the scripts in this directory; sourced, never run.

FLIPFENCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLIPFENCE_CACHE=${FLIPFENCE_CACHE:-$HOME/.cache/flipfence}
KERNEL_TARBALL=/usr/src/linux-source-6.1.tar.xz
KERNEL_PACKAGE=linux-source-6.1
# Bump when build-kernel changes how a tree is built, to invalidate the cache.
KERNEL_RECIPE=1
# What `make build` and `make check` build; "bench" (lean + mainline
# sw_sync) is built by `make bench` only.
FLAVOURS="debug lean"
ALL_FLAVOURS="debug lean bench"

die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

log() {
	echo "==> $*" >&2
}

# Serialises scripts that write the same cache or build/ outputs, so two
# `make build`s (or a build and a test run's build) never interleave.
lock_or_wait() {
	mkdir -p "$FLIPFENCE_CACHE"
	exec 9>"$FLIPFENCE_CACHE/.lock-$1"
	flock -n 9 || { log "waiting for another $1 to finish"; flock 9; }
}

jobs_for_make() {
	echo $(($(nproc) + 1))
}

# The config fragments of a flavour, in the order they apply (later ones
# override earlier ones).
flavour_fragments() {
	local k=$FLIPFENCE_TOP/scripts/kconfig
	case $1 in
	bench) echo "$k/base.config $k/lean.config $k/bench.config" ;;
	*) echo "$k/base.config $k/$1.config" ;;
	esac
}

# The cache key of a kernel flavour: package version, recipe, config
# fragments and the patch series, in that order.
kernel_key() {
	local flavour=$1
	{
		dpkg-query -W -f='${Version}\n' "$KERNEL_PACKAGE" 2>/dev/null || echo none
		echo "recipe $KERNEL_RECIPE"
		# shellcheck disable=SC2046
		cat $(flavour_fragments "$flavour")
		patch_diffs
	} | sha256sum | cut -c1-16
}

# What the patches change in the tree: their diffs, without the commit
# messages and signatures, so that rewording a message rebuilds nothing.
patch_diffs() {
	local p
	for p in "$FLIPFENCE_TOP"/patches/*.patch; do
		[ -e "$p" ] || continue
		sed -n '/^diff --git /,$p' "$p" | sed '/^-- $/,$d'
	done
}

patches_key() {
	{
		dpkg-query -W -f='${Version}\n' "$KERNEL_PACKAGE" 2>/dev/null || echo none
		patch_diffs
	} | sha256sum | cut -c1-16
}

kernel_dir() {
	echo "$FLIPFENCE_CACHE/kernel-$1-$(kernel_key "$1")"
}

source_dir() {
	echo "$FLIPFENCE_CACHE/src-$(patches_key)/linux"
}

# Where the out-of-tree modules of a flavour are built and installed: one
# place per checkout, so that building in one never swaps the modules under
# a guest that another checkout is running.
modules_dir() {
	echo "$FLIPFENCE_CACHE/modules-$1-$(printf %s "$FLIPFENCE_TOP" | sha1sum | cut -c1-12)"
}

kernel_release() {
	cat "$(kernel_dir "$1")/include/config/kernel.release"
}

# -h or --help as the first argument of a script here prints its usage (the
# comment at its top) on stdout and exits 0 before the script does anything:
# no build, no lock, no guest. A script with a usage() function of its own
# (vm, bench-report) answers itself.
script_help() {
	local self=$1
	grep -q '^# usage:' "$self" || echo "usage: scripts/$(basename "$self")"
	awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$self"
}
case ${1:-} in
-h | --help)
	if ! grep -q '^usage()' "$0"; then
		script_help "$0"
		exit 0
	fi
	;;
esac
