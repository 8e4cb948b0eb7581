# shellcheck shell=bash
# Helpers for harness tests: one result line per check.

failures=0

pass() {
	echo "ok - $1"
}

fail() {
	echo "not ok - $1: $2"
	failures=$((failures + 1))
}

# check NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

done_testing() {
	[ "$failures" -eq 0 ]
}
