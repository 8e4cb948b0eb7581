#!/bin/bash
# The guest runner fails the one test during which the kernel splatted and
# passes the others.
. "$(dirname "$0")/lib.sh"

# The guest sees the host's root but not its /tmp.
mkdir -p build/tmp
manifest=$(mktemp -p "$PWD/build/tmp")
trap 'rm -f "$manifest"' EXIT
cat >"$manifest" <<MANIFEST
lean  quiet-before  30  true
lean  warns         30  modprobe -d "\$FLIPFENCE_MODROOT" ffwarn
lean  quiet-after   30  true
MANIFEST
out=$(scripts/vm -k lean -m none -- tests/runner -f "$manifest" 2>/dev/null)
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
check_eq runner-summary "2 passed, 1 failed" "$(echo "$out" | tail -1)"
done_testing
