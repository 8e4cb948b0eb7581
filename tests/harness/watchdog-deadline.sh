#!/bin/bash
# SPDX-License-Identifier: MIT
# A C test's watchdog (tests/lib/check.c) fires before tests/runner's
# timeout, whatever its own setting: the runner exports its deadline
# ($FLIPFENCE_DEADLINE) and watchdog() cuts its time to end 5 s before it,
# so that a hang is named by the check it hung in, not by "timed out".
# Host only: a made-up C test, built here, under the runner.
. "$(dirname "$0")/lib.sh"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/hangs.c" <<'C'
#include <unistd.h>
#include "check.h"

int main(void)
{
	watchdog(600);		/* far past the manifest's 10 s */
	begin("waits-forever");
	pause();
	return finish();
}
C
if ! cc -I tests/lib -o "$dir/hangs" "$dir/hangs.c" tests/lib/check.c 2>"$dir/cc"; then
	fail builds "cc: $(head -1 "$dir/cc")"
	finish
fi
echo "host t/hangs 10 $dir/hangs" >"$dir/TESTS"
began=$SECONDS
out=$(tests/runner -f "$dir/TESTS" 2>&1)
took=$((SECONDS - began))
line=$(printf '%s\n' "$out" | grep -E '^not ok - t/hangs' | head -1)
case $line in
"not ok - t/hangs/waits-forever: expected to finish within "*" s, got stuck (watchdog)")
	pass watchdog-names-the-hung-check ;;
*) fail watchdog-names-the-hung-check "expected the watchdog's line for t/hangs/waits-forever, got '$line'" ;;
esac
check no-timeout-line "$(printf '%s\n' "$out" | grep -c 'timed out')" \
	"expected no 'timed out' line, got: $(printf '%s\n' "$out" | grep 'timed out')"
[ "$took" -lt 10 ] && pass fires-before-the-timeout ||
	fail fires-before-the-timeout "expected the run to end before the 10 s timeout, took $took s"
finish
