#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs a harness test (or compositor/ci-recipe, which boots its guests on
# the host too), or prints the results of its last green run again when
# nothing it exercises changed since (scripts/green-cache.sh).
#
# usage: tests/harness/by-content.sh [-i PATH]... TEST-SCRIPT
#
# The harness tests prove the machinery: scripts/vm, scripts/test,
# tests/runner and the guest's init, against the kernels and the test-only
# ffwarn module, by booting guests of their own on the host (150 s of every
# make check). Their verdict follows from those inputs, so the key hashes
# them: the test script, the harness's lib.sh and ffwarn, the scripts the
# guests are booted and judged with, tests/runner and the test libraries,
# the kernels of the series (their keyed cache names), every installed
# package's version (QEMU's among them), the host's kernel and CPU count,
# and the PATHs of -i (the sources of any other module a test's guests
# load). A failing run is never recorded. The records are in
# $FLIPFENCE_CACHE/harness-green; FLIPFENCE_HARNESS_FULL=1 ignores them.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=scripts/green-cache.sh
. "$FLIPFENCE_TOP/scripts/green-cache.sh"

inputs=()
while getopts i: opt; do
	case $opt in
	i) inputs+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "usage: tests/harness/by-content.sh [-i PATH]... TEST-SCRIPT"
test=$1 name=$(basename "$1" .sh)
dir=$FLIPFENCE_CACHE/harness-green
export FLIPFENCE_KERNEL_SERIES=${FLIPFENCE_KERNEL_SERIES:-6.1}
set_kernel_series "$FLIPFENCE_KERNEL_SERIES"

cd "$FLIPFENCE_TOP" || exit 1
key=$({
	echo "harness $test series $FLIPFENCE_KERNEL_SERIES host $(uname -r) cpus $(nproc)"
	for f in $FLAVOURS; do kernel_dir "$f"; done
} | green_key "$test" tests/harness/by-content.sh tests/harness/lib.sh tests/harness/ffwarn \
	tests/runner tests/lib.sh tests/lib scripts/vm scripts/test scripts/guest-init \
	scripts/guest-fstab scripts/guest-fstab-early scripts/splat-patterns \
	scripts/kmemleak-by-test scripts/lib.sh scripts/tap-junit scripts/build "${inputs[@]}")

# Replayed lines go through result_line, so tests/runner counts them.
# shellcheck source=tests/lib.sh
. tests/lib.sh
if lines=$(green_replay "$dir" "$name" "$key" FLIPFENCE_HARNESS_FULL); then
	while IFS= read -r line; do result_line "$line"; done <<<"$lines"
	exit 0
fi

# The test's own result lines, as it logged them for the runner.
own=$(mktemp)
trap 'rm -f "$own"' EXIT
FLIPFENCE_RESULT_LOG=$own "$test"
rc=$?
[ -z "${FLIPFENCE_RESULT_LOG:-}" ] || cat "$own" >>"$FLIPFENCE_RESULT_LOG"
if [ $rc -eq 0 ] && [ -s "$own" ] && ! grep -q '^not ok' "$own"; then
	mapfile -t lines <"$own"
	green_record "$dir" "$name" "$key" "${lines[@]}"
fi
exit $rc
