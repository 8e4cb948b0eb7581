#!/bin/bash
# Each detector of the debug kernel fails a run: a KASAN report, a lockdep
# report and a kmemleak leak, each caused on purpose by ffwarn in one guest.
. "$(dirname "$0")/lib.sh"

mkdir -p build/tmp
log=$(mktemp -p "$PWD/build/tmp")
trap 'rm -f "$log"' EXIT

# shellcheck disable=SC2016
scripts/vm -k debug -m none -l "$log" -- bash -c '
	for m in kasan lockdep leak; do
		modprobe -d "$FLIPFENCE_MODROOT" ffwarn mode=$m &&
			modprobe -r -d "$FLIPFENCE_MODROOT" ffwarn || exit 1
	done' >/dev/null 2>&1
check_eq debug-detectors-status 126 $?
grep -q 'BUG: KASAN: slab-out-of-bounds in ffwarn' "$log" && pass kasan-report-seen ||
	fail kasan-report-seen "no KASAN report naming ffwarn in the console log"
grep -q 'possible circular locking dependency detected' "$log" && pass lockdep-report-seen ||
	fail lockdep-report-seen "no lockdep report in the console log"
grep -qE 'kmemleak: [0-9]+ new suspected memory leak' "$log" && pass kmemleak-leak-seen ||
	fail kmemleak-leak-seen "no kmemleak leak in the console log"
done_testing
