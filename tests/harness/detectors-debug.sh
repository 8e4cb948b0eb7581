#!/bin/bash
# SPDX-License-Identifier: MIT
# Each detector of the debug kernel fails a run: a KASAN report, a lockdep
# report and a kmemleak leak, each caused on purpose by ffwarn in one guest.
# The leak is made by a test under tests/runner, between two quiet ones,
# and the scan guest-init runs after every job (scripts/kmemleak-by-test)
# must name that test and no other. KASAN goes last: its report taints the
# kernel, which turns lockdep off.
. "$(dirname "$0")/lib.sh"

mkdir -p build/tmp
log=$(mktemp -p "$PWD/build/tmp")
manifest=$(mktemp -p "$PWD/build/tmp")
trap '[ -n "${KEEP_LOG:-}" ] || rm -f "$log" "$manifest"' EXIT
cat >"$manifest" <<'EOF'
debug t/quiet-before 30 sleep 1
debug t/leaks 30 modprobe -d "$FLIPFENCE_MODROOT" ffwarn mode=leak && modprobe -r -d "$FLIPFENCE_MODROOT" ffwarn
debug t/quiet-after 30 sleep 1
EOF

# shellcheck disable=SC2016
out=$(scripts/vm -k debug -m none -l "$log" -- bash -c '
	tests/runner -k debug -f "$1" || exit 1
	for m in lockdep kasan; do
		modprobe -d "$FLIPFENCE_MODROOT" ffwarn mode=$m &&
			modprobe -r -d "$FLIPFENCE_MODROOT" ffwarn || exit 1
	done' sh "$manifest" 2>/dev/null)
check_eq debug-detectors-status 126 $?
line=$(printf '%s\n' "$out" | grep -m1 '^not ok - t/leaks/kmemleak: ')
[ -n "$line" ] && pass kmemleak-names-the-leaking-test ||
	fail kmemleak-names-the-leaking-test "no 'not ok - t/leaks/kmemleak' line in: $(printf '%s\n' "$out" | tail -8)"
# ffwarn is unloaded by then: its frame is a bare address, under its init.
case $line in
*"bytes by modprobe pid "*": "*do_one_initcall*) pass kmemleak-line-shows-the-allocation ;;
*) fail kmemleak-line-shows-the-allocation "expected modprobe and a backtrace through do_one_initcall, got '$line'" ;;
esac
others=$(printf '%s\n' "$out" | grep 'kmemleak' | grep '^not ok - ' | grep -v '^not ok - t/leaks/kmemleak: ')
check_eq kmemleak-blames-no-other-test "" "$others"
grep -q 'BUG: KASAN: slab-out-of-bounds in ffwarn' "$log" && pass kasan-report-seen ||
	fail kasan-report-seen "no KASAN report naming ffwarn in the console log"
grep -q 'possible circular locking dependency detected' "$log" && pass lockdep-report-seen ||
	fail lockdep-report-seen "no lockdep report in the console log"
grep -qE 'kmemleak: [0-9]+ new suspected memory leak' "$log" && pass kmemleak-leak-seen ||
	fail kmemleak-leak-seen "no kmemleak leak in the console log"
done_testing
