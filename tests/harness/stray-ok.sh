#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/runner counts an "ok" or "skip" line only if the test printed it as
# its own result (tests/lib.sh, tests/lib/result.h): an "ok - " line that a
# tool prints on the way is a comment, never a pass, and does not count
# among the test's results (scripts/test's results_per_test and the
# tests/RESULTS comparison read the runner's lines). Host only: a made-up
# manifest under the runner.
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
lib=$PWD/tests/lib.sh
cat >"$dir/TESTS" <<EOF
host t/tool-noise   10 echo "ok - stray line from a tool"
host t/noise-fails  10 echo "ok - tool says fine"; exit 1
host t/own-lines    10 . $lib; echo "ok - own-pass"; pass own-pass; skip own-skip why; finish
EOF
[ "$(id -u)" = 0 ] &&
	echo "host t/as-nobody 10 setpriv --reuid=65534 --regid=65534 --clear-groups bash -c '. $lib; pass from-nobody'" >>"$dir/TESTS"
out=$(tests/runner -f "$dir/TESTS" 2>&1)

has() { printf '%s\n' "$out" | grep -qxF -- "$1"; }
why() { printf '%s\n' "$out" | grep -E '^(ok|not ok|skip) - |passed' | tr '\n' '|'; }

! has 'ok - t/tool-noise/stray line from a tool' && has 'ok - t/tool-noise' &&
	pass tool-line-is-no-subtest || fail tool-line-is-no-subtest "got $(why)"
! has 'ok - t/noise-fails/tool says fine' && has 'not ok - t/noise-fails: exited 1' &&
	pass tool-line-is-no-pass-of-a-failed-test || fail tool-line-is-no-pass-of-a-failed-test "got $(why)"
has 'ok - t/own-lines/own-pass' && has 'skip - t/own-lines/own-skip: why' &&
	[ "$(printf '%s\n' "$out" | grep -cxF 'ok - t/own-lines/own-pass')" = 1 ] &&
	pass own-lines-count-once-each || fail own-lines-count-once-each "got $(why)"
if [ "$(id -u)" != 0 ]; then
	skip nobodys-lines-count "not root: cannot run a check as nobody"
else
	has 'ok - t/as-nobody/from-nobody' && pass nobodys-lines-count ||
		fail nobodys-lines-count "got $(why)"
fi
# t/tool-noise and the own-lines' pass (and nobody's, as root) pass; only
# t/noise-fails fails.
want="$(( $(id -u) == 0 ? 3 : 2 )) passed, 1 failed"
check_eq totals "$want" "$(printf '%s\n' "$out" | tail -1)"
done_testing
