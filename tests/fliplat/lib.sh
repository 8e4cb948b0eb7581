# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared by the tests/fliplat scripts: result lines, the card of a driver,
# running fliplat into a scratch directory, and jq queries of its JSON.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fliplat=$top/build/fliplat/fliplat
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; failures=$((failures + 1)); }
check() {	# NAME CONDITION-AS-JQ-OR-SHELL-STATUS MESSAGE
	if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

# The /dev/dri/cardN of DRM driver $1.
card_of() {
	local d
	for d in /sys/kernel/debug/dri/[0-9]*; do
		[ "$(awk '{ print $1; exit }' "$d/name" 2>/dev/null)" = "$1" ] &&
			{ echo "/dev/dri/card${d##*/}"; return 0; }
	done
	return 1
}

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

# latched CTL: flips CRTC 0 of the flipkms whose crtc-0 debugfs dir is CTL
# has latched, from flipkms_status.
latched() {
	awk '/flips [0-9]+/ { for (i = 1; i < NF; i++) if ($i == "flips") print $(i + 1) + 0; exit }' \
		"$1/../flipkms_status"
}

# latched_more CTL BASE N: waits up to 10 s for N flips more than BASE.
latched_more() {
	local i
	for i in $(seq 100); do
		[ $(($(latched "$1") - $2)) -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

finish() {
	[ $failures -eq 0 ]
}
