#!/bin/bash
# SPDX-License-Identifier: MIT
# A guest that dies costs one test, not the run: scripts/test keeps the
# results printed before, fails by name the test the guest died in and
# lists every test it did not reach as not run. A test that outlives its
# timeout fails by name and the run goes on. A panic ends a lean guest at
# once; a task hung in D state panics a debug guest (hung_task_panic).
# The guest's hung-task timeout is 30 s (scripts/vm): the hanging test
# checks that, then lowers it to 5 s, so that the detector fires 25 to 50 s
# sooner; a guest without hung_task_panic would still fail.
. "$(dirname "$0")/lib.sh"

mkdir -p build/tmp
manifest=$(mktemp -p "$PWD/build/tmp")
trap 'rm -f "$manifest"' EXIT

# has_line NAME TEXT: TEXT has NAME (a regular expression) as a whole line.
has_line() {
	echo "$2" | grep -qxE "$1"
}

cat >"$manifest" <<MANIFEST
lean   quiet-before  30  true
lean   overruns      3   sleep 60
lean   panics        30  modprobe -d "\$FLIPFENCE_MODROOT" ffwarn mode=panic
lean   quiet-after   30  true
debug  hang-before   30  true
debug  hangs         300 [ "\$(cat /proc/sys/kernel/hung_task_timeout_secs)" = 30 ] && echo 5 >/proc/sys/kernel/hung_task_timeout_secs && modprobe -d "\$FLIPFENCE_MODROOT" ffwarn mode=hang
debug  hang-after    30  true
MANIFEST

start=$(date +%s)
out=$(scripts/test -k lean -f "$manifest" 2>&1)
rc=$?
took=$(($(date +%s) - start))
check_eq lean-run-fails 1 "$rc"
has_line 'ok - quiet-before' "$out" && pass results-before-death-kept ||
	fail results-before-death-kept "no 'ok - quiet-before' in: $(echo "$out" | tail -15)"
has_line 'not ok - overruns: timed out after 3 s' "$out" && pass overrun-test-fails-by-name ||
	fail overrun-test-fails-by-name "got: $(echo "$out" | grep overruns)"
has_line 'not ok - panics: the guest died while this test ran.*' "$out" && pass panic-fails-its-test ||
	fail panic-fails-its-test "got: $(echo "$out" | grep -E 'panics|died' | head -3)"
has_line 'not ok - quiet-after: not run.*' "$out" && pass unreached-test-not-run ||
	fail unreached-test-not-run "got: $(echo "$out" | grep quiet-after)"
has_line '1 passed, 3 failed' "$out" && pass panic-run-summary ||
	fail panic-run-summary "got: $(echo "$out" | tail -1)"
# The panic must end the guest, not a guard: 60 s is several boots.
[ "$took" -lt 60 ] && pass panic-ends-guest-at-once || fail panic-ends-guest-at-once "took $took s"

start=$(date +%s)
out=$(scripts/test -k debug -f "$manifest" 2>&1)
rc=$?
took=$(($(date +%s) - start))
check_eq debug-run-fails 1 "$rc"
has_line 'not ok - hangs: the guest died while this test ran.*' "$out" && pass hung-task-fails-its-test ||
	fail hung-task-fails-its-test "got: $(echo "$out" | grep -E 'hangs|died' | head -3)"
has_line 'not ok - hang-after: not run.*' "$out" && pass hang-unreached-test-not-run ||
	fail hang-unreached-test-not-run "got: $(echo "$out" | grep hang-after)"
echo "$out" | grep -qE 'blocked for more than 5 seconds|hung_task: blocked tasks' && pass hung-task-reported ||
	fail hung-task-reported "no hung-task report in: $(echo "$out" | grep -E '^  \|' | tail -5)"
# The hung-task detector fires 5 to 10 s after the task blocked; the
# test's own 300 s timeout would not have ended it (msleep is not killable).
[ "$took" -lt 150 ] && pass hang-ends-guest-before-timeout || fail hang-ends-guest-before-timeout "took $took s"
done_testing
