#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat's report writers on a run with known contents (report-fixture.c):
# the JSON parses and holds the expected summary, the CSV has one row per
# flip with every column, the SVG is well-formed XML with one bar per bin
# and one point per counted flip, and the table shows every metric.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

check() {	# NAME WANT GOT
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1: expected '$2', got '$3'"
		failures=$((failures + 1))
	fi
}

"$top/build/tests/fliplat-unit/report-fixture" "$dir" || { echo "not ok - fixture: exit $?"; exit 1; }

# --- JSON ---------------------------------------------------------------------
json=$dir/run.json
check json-parses 0 "$(jq empty "$json" >/dev/null 2>&1; echo $?)"
q() { jq -r "$1" "$json" 2>&1; }
# A number to three decimals; anything else (null for a missing field) as
# itself, so that it cannot pass for 0.000.
num() {
	local v
	v=$(jq -r "$1 | if type == \"number\" then . else \"not a number: \" + tojson end" "$json" 2>&1)
	case $v in
	"not a number"*) echo "$v" ;;
	*) printf '%.3f' "$v" ;;
	esac
}
check json-mode atomic "$(q .config.mode)"
check json-flips 50 "$(q .flips)"
check json-flips-counted 40 "$(q .flips_counted)"
check json-crtcs 2 "$(q '.crtcs | length')"
check json-escaped-desc "$(printf 'a "quoted" back\\slash\nnewline')" "$(q .system.driver_desc)"
# Counted flips are 10..49; signal - submit = 1000 + i us.
check json-signal-submit-n 40 "$(q '.summary["signal-submit"].n')"
check json-signal-submit-min 1010.000 "$(num '.summary["signal-submit"].min')"
check json-signal-submit-max 1049.000 "$(num '.summary["signal-submit"].max')"
check json-signal-submit-p50 1029.000 "$(num '.summary["signal-submit"].p50')"
check json-wake-signal-mean 50.000 "$(num '.summary["wake-signal"].mean')"
check json-event-signal-max 0.000 "$(num '.summary["event-signal"].max')"
check json-missed-max 1.000 "$(num '.summary["missed-vblanks"].max')"
check json-crtc1-n 20 "$(q '.crtcs[1].summary["signal-submit"].n')"
check json-units us/vblanks "$(q '.summary["signal-submit"].unit + "/" + .summary["missed-vblanks"].unit')"
check json-no-nan 0 "$(grep -ciE 'nan|inf' "$json")"

# --- CSV ----------------------------------------------------------------------
csv=$dir/run.csv
check csv-rows 51 "$(wc -l <"$csv")"
header_cols=$(head -1 "$csv" | awk -F, '{ print NF }')
check csv-columns 16 "$header_cols"
check csv-every-row-full 0 "$(awk -F, -v n="$header_cols" 'NF != n' "$csv" | wc -l)"
check csv-warmup-rows 10 "$(awk -F, 'NR > 1 && $4 == 1' "$csv" | wc -l)"
check csv-signal-minus-submit-of-flip-7 1007000 "$(awk -F, 'NR == 9 { print $10 }' "$csv")"

# --- SVG ----------------------------------------------------------------------
svg=$dir/run.svg
check svg-well-formed 0 "$(xmllint --noout "$svg" >/dev/null 2>&1; echo $?)"
# ceil(sqrt(40)) = 7 bins; one point per counted flip; flips 19, 29, 39, 49 missed.
check svg-bars 7 "$(grep -c 'class="bar"' "$svg")"
check svg-points 40 "$(grep -c 'class="flip"' "$svg")"
check svg-missed-rings 4 "$(grep -c 'class="missed"' "$svg")"
check svg-self-contained 0 "$(grep -ciE '<script|href=' "$svg")"

# --- table --------------------------------------------------------------------
table=$dir/table.txt
for m in signal-submit wake-signal event-signal vblank-interval missed-vblanks; do
	check "table-has-$m" 3 "$(grep -c "^  $m " "$table")"
done

[ $failures -eq 0 ]
