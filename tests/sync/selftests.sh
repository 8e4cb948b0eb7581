#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the kernel's own tools/testing/selftests/sync (built unmodified by
# tests/Makefile into build/tests/selftests-sync/SERIES, from the tree of
# the kernel series the guest runs) against syncfw and turns
# its kselftest TAP into our result lines:
#
#   ok 3 [RUN]	test_alloc_fence_negative  ->  ok - selftests-sync/test_alloc_fence_negative
#   not ok 5 [RUN]	test_x                 ->  not ok - selftests-sync/test_x: <its [ERROR] lines>
#
# SELFTESTS_SYNC_TIMEOUT (seconds, default 300) bounds the run.
# Fails if the binary is missing, reports no tests, reports fewer results
# than its plan (sync_test prints nothing for a test whose child crashed),
# bails out, or exits non-zero without saying why.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# The selftests of the series the guest runs (tests/Makefile builds each).
BIN=${SELFTESTS_SYNC:-$TOP/build/tests/selftests-sync/${FLIPFENCE_KERNEL_SERIES:-6.1}/sync_test}
P=selftests-sync
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

if [ ! -x "$BIN" ]; then
	echo "not ok - $P: expected $BIN, got nothing (run make -C tests)"
	exit 1
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# sync_test leaves the remaining tests waiting for ever when one of its
# stress tests fails half-way, so bound it here and report what it got to.
# Line-buffered, so that a test's [ERROR] line survives its being killed.
limit=${SELFTESTS_SYNC_TIMEOUT:-300}
timeout -k 10 "$limit" stdbuf -oL -eL "$BIN" >"$out" 2>&1 </dev/null
rc=$?

plan="" results=0 failed=0 errors=""
while IFS= read -r line; do
	case $line in
	"1.."*)
		plan=${line#1..}
		plan=${plan%% *}
		;;
	"ok "*|"not ok "*)
		verdict=ok
		[[ $line == "not ok "* ]] && verdict="not ok"
		rest=${line#"$verdict" }
		rest=${rest#* }				# the test number
		name=${rest#"[RUN]"}
		name=$(trim "$name")
		results=$((results + 1))
		if [[ $name == "# SKIP"* ]]; then
			result_line "skip - $P/test$results: $(trim "${name#"# SKIP"}")"
		elif [ "$verdict" = ok ]; then
			result_line "ok - $P/$name"
		else
			failed=$((failed + 1))
			echo "not ok - $P/$name: expected success, got ${errors:-failure without a message}"
		fi
		errors=""
		;;
	"# [ERROR]"*)
		msg=$(trim "${line#"# [ERROR]"}")
		errors="${errors:+$errors; }$msg"
		echo "# $line"
		;;
	"Bail out!"*)
		failed=$((failed + 1))
		echo "not ok - $P: bailed out: ${line#"Bail out! "}"
		;;
	*)
		echo "# $line"
		;;
	esac
done <"$out"

if [ "$results" -eq 0 ]; then
	echo "not ok - $P: expected test results, got none (exit $rc)"
	exit 1
fi
if [ -n "$plan" ] && [ "$results" -lt "$plan" ]; then
	why="a test crashed?"
	case $rc in 124 | 137) why="killed after $limit s" ;; esac
	[ -n "$errors" ] && why="$why; last error: $errors"
	echo "not ok - $P/plan: expected $plan results, got $results ($why)"
	exit 1
fi
if [ $rc -ne 0 ] && [ $failed -eq 0 ]; then
	echo "not ok - $P: expected exit 0, got $rc"
	exit 1
fi
[ $failed -eq 0 ]
