# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared by the tests/fliplat scripts: tests/lib.sh's result lines and card
# lookup, running fliplat into a scratch directory, and jq queries of its
# JSON and CSV.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
fliplat=$top/build/fliplat/fliplat
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# run NAME ARGS...: fliplat with --json/--csv into $scratch/NAME.*; sets $rc.
run() {
	local name=$1
	shift
	"$fliplat" --no-progress -q --json "$scratch/$name.json" --csv "$scratch/$name.csv" \
		"$@" >"$scratch/$name.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || sed "s/^/# $name: /" "$scratch/$name.out"
}

# jqt NAME FILTER: the JSON of run NAME through FILTER ("true" when it holds).
jqt() {
	jq -r "$2" "$scratch/$1.json" 2>/dev/null
}

# holds TEST NAME FILTER MESSAGE: passes if FILTER gives true on run NAME's JSON.
holds() {
	if [ "$(jqt "$2" "$3")" = true ]; then
		pass "$1"
	else
		fail "$1" "$4 (jq '$3' gave '$(jqt "$2" "$3" | tr '\n' ' ' | cut -c1-200)')"
	fi
}

# csv NAME [AWK-OPTION...] AWK-PROGRAM: AWK-PROGRAM over the data rows of
# run NAME's CSV, with col["header_name"] holding each column's number, so
# that programs address columns by name: $col["event_ns"].
csv() {
	local file=$scratch/$1.csv
	shift
	local prog=${*: -1}
	awk -F, "${@:1:$#-1}" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		'"$prog" "$file"
}
