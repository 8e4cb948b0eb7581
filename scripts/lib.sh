# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared settings for the scripts in this directory; sourced, never run.

FLIPFENCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLIPFENCE_CACHE=${FLIPFENCE_CACHE:-$HOME/.cache/flipfence}
# The kernel series a script builds or boots: Debian's linux-source-6.1 (the
# default, what a fresh Debian 12 has) or linux-source-6.12; chosen with
# FLIPFENCE_KERNEL_SERIES or a script's -s SERIES (set_kernel_series).
KERNEL_SERIES_ALL="6.1 6.12"
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

# Selects the kernel series $1 for everything below, and for the scripts this
# one runs (exported). "own" is the tree in $FLIPFENCE_KERNEL_SOURCE, built
# with the patches and config of the nearest series (own_kernel_series).
set_kernel_series() {
	if [ "$1" = own ]; then
		own_kernel_series
		return
	fi
	case " $KERNEL_SERIES_ALL " in
	*" $1 "*) ;;
	*) die "unknown kernel series '$1' (want one of: $KERNEL_SERIES_ALL, or own)" ;;
	esac
	FLIPFENCE_KERNEL_SERIES=$1
	KERNEL_BASE_SERIES=$1
	KERNEL_PACKAGE=linux-source-$1
	KERNEL_TARBALL=/usr/src/linux-source-$1.tar.xz
	KERNEL_PATCHES=$FLIPFENCE_TOP/patches/$1
	# Cache entries of 6.1 keep the names they had before there were
	# series; every other series names itself (kernel-6.12-lean-KEY).
	if [ "$1" = 6.1 ]; then SERIES_TAG=""; else SERIES_TAG=$1-; fi
	export FLIPFENCE_KERNEL_SERIES
}

# A kernel source tree of the user's own, best effort
# (Documentation/building.rst, "A kernel of your own"): its version picks
# the nearest series at or below it, whose patches and config fragment
# apply; the cache names it after the tree's path.
own_kernel_series() {
	local src=${FLIPFENCE_KERNEL_SOURCE:-} v p base="" s
	[ -n "$src" ] || die "series own: set FLIPFENCE_KERNEL_SOURCE to your kernel source directory"
	[ -f "$src/Makefile" ] && [ -f "$src/Kconfig" ] ||
		die "series own: $src is not a kernel source tree (no Makefile and Kconfig)"
	src=$(cd "$src" && pwd)
	v=$(awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 } END { print v "." p }' "$src/Makefile")
	for s in $KERNEL_SERIES_ALL; do
		if printf '%s\n%s\n' "$s" "$v" | sort -V -C; then base=$s; fi
	done
	[ -n "$base" ] || die "series own: your tree is Linux $v; flipfence supports $KERNEL_SERIES_ALL and later"
	FLIPFENCE_KERNEL_SERIES=own
	FLIPFENCE_KERNEL_SOURCE=$src
	KERNEL_BASE_SERIES=$base
	KERNEL_OWN_VERSION=$v
	KERNEL_PACKAGE=""
	KERNEL_TARBALL=""
	KERNEL_PATCHES=$FLIPFENCE_TOP/patches/$base
	SERIES_TAG=own-$(printf %s "$src" | sha1sum | cut -c1-8)-
	export FLIPFENCE_KERNEL_SERIES FLIPFENCE_KERNEL_SOURCE
}

# What names the source a kernel is built from: the Debian package's
# version, or for one's own tree its version, git commit and uncommitted
# changes (or, outside git, the time of its newest file).
source_version() {
	if [ -n "$KERNEL_PACKAGE" ]; then
		dpkg-query -W -f='${Version}\n' "$KERNEL_PACKAGE" 2>/dev/null || echo none
		return
	fi
	echo "own $KERNEL_OWN_VERSION $FLIPFENCE_KERNEL_SOURCE"
	if git -C "$FLIPFENCE_KERNEL_SOURCE" rev-parse HEAD 2>/dev/null; then
		git -C "$FLIPFENCE_KERNEL_SOURCE" diff HEAD | sha256sum
	else
		find "$FLIPFENCE_KERNEL_SOURCE" -type f -printf '%T@\n' | sort -n | tail -1
	fi
}

jobs_for_make() {
	echo $(($(nproc) + 1))
}

# The config fragments of a flavour, in the order they apply (later ones
# override earlier ones): base, the series' own if it has one (6.1 has
# none), then the flavour's.
flavour_fragments() {
	local k=$FLIPFENCE_TOP/scripts/kconfig base
	base=$k/base.config
	[ -e "$k/$KERNEL_BASE_SERIES.config" ] && base+=" $k/$KERNEL_BASE_SERIES.config"
	case $1 in
	bench) echo "$base $k/lean.config $k/bench.config" ;;
	*) echo "$base $k/$1.config" ;;
	esac
}

# The cache key of a kernel flavour: package version (which names the
# series), recipe, config fragments and the series' patches, in that order.
kernel_key() {
	local flavour=$1
	{
		source_version
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
	for p in "$KERNEL_PATCHES"/*.patch; do
		[ -e "$p" ] || continue
		sed -n '/^diff --git /,$p' "$p" | sed '/^-- $/,$d'
	done
}

patches_key() {
	{
		source_version
		patch_diffs
	} | sha256sum | cut -c1-16
}

kernel_dir() {
	echo "$FLIPFENCE_CACHE/kernel-$SERIES_TAG$1-$(kernel_key "$1")"
}

source_dir() {
	echo "$FLIPFENCE_CACHE/src-$SERIES_TAG$(patches_key)/linux"
}

# Where the out-of-tree modules of a flavour are built and installed: one
# place per checkout, so that building in one never swaps the modules under
# a guest that another checkout is running.
modules_dir() {
	echo "$FLIPFENCE_CACHE/modules-$SERIES_TAG$1-$(printf %s "$FLIPFENCE_TOP" | sha1sum | cut -c1-12)"
}

kernel_release() {
	cat "$(kernel_dir "$1")/include/config/kernel.release"
}

set_kernel_series "${FLIPFENCE_KERNEL_SERIES:-6.1}"

# -h or --help as the first argument of a script here prints its usage (the
# comment at its top) on stdout and exits 0 before the script does anything:
# no build, no lock, no guest. A script with a usage() function of its own
# (vm, bench-report) answers itself.
script_help() {
	local self=$1
	grep -q '^# usage:' "$self" || echo "usage: scripts/$(basename "$self")"
	awk 'NR == 1 || /SPDX-License-Identifier/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$self"
}
case ${1:-} in
-h | --help)
	if ! grep -q '^usage()' "$0"; then
		script_help "$0"
		exit 0
	fi
	;;
esac
