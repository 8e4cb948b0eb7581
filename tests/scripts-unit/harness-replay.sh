#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/harness/by-content.sh, on a copy of the scripts it keys and a
# made-up harness test that counts its runs: a green run is recorded and
# replayed (its lines counted by the runner), FLIPFENCE_HARNESS_FULL=1 and
# a change to any file the harness exercises run it in full again, and a
# failing run is never replayed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
copy=$dir/top
mkdir -p "$copy/tests" "$copy/drivers"
cp -r "$top/scripts" "$copy/"
cp -r "$top/tests/harness" "$top/tests/lib" "$top/tests/lib.sh" "$top/tests/runner" "$copy/tests/"
echo 'int x;' >"$copy/drivers/a.c"
cat >"$copy/tests/harness/counts.sh" <<EOF2
#!/bin/bash
. "$copy/tests/lib.sh"
echo run >>"$dir/runs"
pass a
skip b why
[ -e "$dir/fail" ] && fail c broken
finish
EOF2
chmod +x "$copy/tests/harness/counts.sh"
export FLIPFENCE_CACHE=$dir/cache
unset FLIPFENCE_HARNESS_FULL

runs() { if [ -e "$dir/runs" ]; then wc -l <"$dir/runs"; else echo 0; fi; }
run_test() {
	(cd "$copy" && FLIPFENCE_RESULT_LOG=$dir/own tests/harness/by-content.sh -i drivers \
		tests/harness/counts.sh) >"$dir/out" 2>&1
}
# ran_again: the made-up test ran (once more than before), not replayed.
ran_again() {
	local before
	before=$(runs)
	run_test
	[ "$(runs)" -eq $((before + 1)) ]
}

ran_again && [ "$(runs)" -eq 1 ]
check first-run-runs $? "the test did not run: $(cat "$dir/out")"

: >"$dir/own"
run_test
rc=$?
[ $rc -eq 0 ] && [ "$(runs)" -eq 1 ] && grep -q '^# counts: inputs unchanged since its green run' "$dir/out"
check green-run-replayed $? "rc $rc, $(runs) runs, output: $(cat "$dir/out")"
[ "$(printf 'ok - a\nskip - b: why')" = "$(grep -v '^#' "$dir/out")" ] &&
	[ "$(printf 'ok - a\nskip - b: why')" = "$(cat "$dir/own")" ]
check replay-prints-and-logs-same-lines $? "printed '$(cat "$dir/out")', logged '$(cat "$dir/own")'"

FLIPFENCE_HARNESS_FULL=1 ran_again
check full-variable-runs-it $? "FLIPFENCE_HARNESS_FULL=1 replayed: $(cat "$dir/out")"

# Each of these is something a harness test exercises; a change to it must
# run the tests again.
for f in scripts/vm scripts/test scripts/guest-init scripts/splat-patterns \
	scripts/kmemleak-by-test scripts/lib.sh scripts/green-cache.sh tests/runner tests/lib.sh \
	tests/lib/check.c tests/harness/lib.sh tests/harness/ffwarn/ffwarn.c \
	tests/harness/counts.sh tests/harness/by-content.sh drivers/a.c; do
	echo "# changed" >>"$copy/$f"
	ran_again || { fail change-runs-again "a change to $f was replayed: $(cat "$dir/out")"; break; }
done
[ "$(runs)" -ge 17 ] && pass change-runs-again

# A new state whose first run fails: the next run must run again.
touch "$dir/fail"
echo "# changed" >>"$copy/drivers/a.c"
ran_again && ran_again
check failed-run-not-replayed $? "a failed run was replayed: $(cat "$dir/out")"
rm -f "$dir/fail"
finish
