#!/bin/bash
# SPDX-License-Identifier: MIT
# The guest runner fails the one test during which the kernel splatted and
# passes the others; a splat that comes after its test was judged fails it
# as TEST/after-it-ended. The runner follows the kernel log with one cat of
# /dev/kmsg; when that dies (here killed on purpose, before warns-late), it
# reads the log with dmesg and still finds the late splat.
. "$(dirname "$0")/lib.sh"

# The guest sees the host's root but not its /tmp.
mkdir -p build/tmp
manifest=$(mktemp -p "$PWD/build/tmp")
trap 'rm -f "$manifest"' EXIT
cat >"$manifest" <<MANIFEST
lean  quiet-before  30  true
lean  warns         30  modprobe -d "\$FLIPFENCE_MODROOT" ffwarn
lean  quiet-after   30  modprobe -r -d "\$FLIPFENCE_MODROOT" ffwarn
lean  follower-dies 30  pkill -x -f 'cat /dev/kmsg'
lean  warns-late    30  (sleep 2; modprobe -d "\$FLIPFENCE_MODROOT" ffwarn) >/dev/null 2>&1 &
lean  quiet-last    30  sleep 4
MANIFEST
# With 3 s between tests, warns-late's splat (2 s after it ended) lands
# before quiet-last begins.
out=$(scripts/vm -k lean -m none -- env FLIPFENCE_RUNNER_SETTLE=3 tests/runner -f "$manifest" 2>/dev/null)
rc=$?
check_eq runner-vm-status 126 "$rc"
case $out in
*"not ok - warns: kernel splat"*) pass runner-fails-splatting-test ;;
*) fail runner-fails-splatting-test "got: $out" ;;
esac
# Whole lines: "ok - quiet-before" is also the tail of "not ok - quiet-before".
if echo "$out" | grep -qx 'ok - quiet-before' && echo "$out" | grep -qx 'ok - quiet-after'; then
	pass runner-passes-quiet-tests
else
	fail runner-passes-quiet-tests "got: $out"
fi
# A splat after its test ended is that test's, not the next one's.
if echo "$out" | grep -q '^not ok - warns-late/after-it-ended: kernel splat' &&
	echo "$out" | grep -qx 'ok - warns-late' && echo "$out" | grep -qx 'ok - quiet-last'; then
	pass runner-late-splat-on-its-test
else
	fail runner-late-splat-on-its-test "got: $(echo "$out" | grep -E 'warns-late|quiet-last')"
fi
echo "$out" | grep -q '^# runner: the kernel log follower stopped' && pass runner-survives-follower-death ||
	fail runner-survives-follower-death "no '# runner: the kernel log follower stopped' line in: $(echo "$out" | grep -A2 follower-dies)"
check_eq runner-summary "5 passed, 2 failed" "$(echo "$out" | tail -1)"
done_testing
