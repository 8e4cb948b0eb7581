#!/bin/bash
# Each detector of the debug kernel fails a run: a KASAN report, a lockdep
# report and a kmemleak leak, each caused on purpose by ffwarn in one guest.
# KASAN goes last: its report taints the kernel, which turns lockdep off
# (and the final kmemleak scan found no leak after it), so the leak is
# scanned for at once, as the runner does after each test area.
. "$(dirname "$0")/lib.sh"

mkdir -p build/tmp
log=$(mktemp -p "$PWD/build/tmp")
trap '[ -n "${KEEP_LOG:-}" ] || rm -f "$log"' EXIT

# shellcheck disable=SC2016
scripts/vm -k debug -m none -l "$log" -- bash -c '
	for m in leak lockdep kasan; do
		modprobe -d "$FLIPFENCE_MODROOT" ffwarn mode=$m &&
			modprobe -r -d "$FLIPFENCE_MODROOT" ffwarn || exit 1
		# kmemleak reports objects unreferenced for 5 s or more.
		if [ $m = leak ]; then
			sleep 6
			echo scan >/sys/kernel/debug/kmemleak
		fi
	done' >/dev/null 2>&1
check_eq debug-detectors-status 126 $?
grep -q 'BUG: KASAN: slab-out-of-bounds in ffwarn' "$log" && pass kasan-report-seen ||
	fail kasan-report-seen "no KASAN report naming ffwarn in the console log"
grep -q 'possible circular locking dependency detected' "$log" && pass lockdep-report-seen ||
	fail lockdep-report-seen "no lockdep report in the console log"
grep -qE 'kmemleak: [0-9]+ new suspected memory leak' "$log" && pass kmemleak-leak-seen ||
	fail kmemleak-leak-seen "no kmemleak leak in the console log"
done_testing
