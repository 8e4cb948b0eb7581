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
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

"$top/build/tests/fliplat-unit/report-fixture" "$dir" || { echo "not ok - fixture: exit $?"; exit 1; }

# --- JSON ---------------------------------------------------------------------
json=$dir/run.json
check_eq json-parses 0 "$(jq empty "$json" >/dev/null 2>&1; echo $?)"
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
check_eq json-mode atomic "$(q .config.mode)"
check_eq json-flips 50 "$(q .flips)"
check_eq json-flips-counted 40 "$(q .flips_counted)"
check_eq json-crtcs 2 "$(q '.crtcs | length')"
check_eq json-escaped-desc "$(printf 'a "quoted" back\\slash\nnewline')" "$(q .system.driver_desc)"
# Counted flips are 10..49; signal - submit = 1000 + i us.
check_eq json-signal-submit-n 40 "$(q '.summary["signal-submit"].n')"
check_eq json-signal-submit-min 1010.000 "$(num '.summary["signal-submit"].min')"
check_eq json-signal-submit-max 1049.000 "$(num '.summary["signal-submit"].max')"
check_eq json-signal-submit-p50 1029.000 "$(num '.summary["signal-submit"].p50')"
check_eq json-wake-signal-mean 50.000 "$(num '.summary["wake-signal"].mean')"
check_eq json-event-signal-max 0.000 "$(num '.summary["event-signal"].max')"
check_eq json-missed-max 1.000 "$(num '.summary["missed-vblanks"].max')"
check_eq json-crtc1-n 20 "$(q '.crtcs[1].summary["signal-submit"].n')"
check_eq json-units us/vblanks "$(q '.summary["signal-submit"].unit + "/" + .summary["missed-vblanks"].unit')"
check_eq json-read-event-p50 80.000 "$(num '.summary["read-event"].p50')"
check_eq json-event-submit-min 1010.000 "$(num '.summary["event-submit"].min')"
# A value printf made of a NaN or an infinity, not the letters in a string
# (the command line holds mktemp's random directory name).
check_eq json-no-nan 0 "$(grep -ciE '[:,[] *-?(nan|inf)' "$json")"
check_eq json-status complete "$(q .status)"
check_eq json-failure null "$(q '.failure | tojson')"
check_eq json-seed 7 "$(q .config.seed)"
# Deadlines are an in-fence mode thing (tests/fliplat-unit/deadlines.sh).
check_eq json-deadlines-null-outside-infence null "$(q '.deadlines | tojson')"
# Counted flips 19, 29, 39, 49 missed one vblank each; 33 early; 2 retries
# (one of a warm-up flip: it moved a submit time all the same).
check_eq json-counts "0 0 4 4 1 0 2 0 0" "$(q '.counts | [.incomplete_flips, .fence_errors, .missed_flips, .missed_vblanks, .early_flips, .late_frames, .ebusy_retries, .unready_flips, .bad_vblank_intervals] | map(tostring) | join(" ")')"
# Where it came from, and the CI's verdict.
check_eq json-schema-version 2 "$(q .schema_version)"
check_eq json-tool-version-set true "$(q '.tool_version | type == "string" and length > 0')"
check_eq json-command-line "$top/build/tests/fliplat-unit/report-fixture $dir" "$(q '.command_line | join(" ")')"
check_eq json-started-at 2026-01-02T03:04:05Z "$(q .started_at)"
check_eq json-kernel-release 6.1.0-fixture "$(q .kernel.release)"
check_eq json-kernel-uname-sysname "$(uname -s)" "$(q .kernel.sysname)"
check_eq json-thresholds "--max-missed 3 4 true/--max-p99-us 2000 1049 false" \
	"$(q '.thresholds | map("\(.option) \(.limit) \(.value) \(.broken)") | join("/")')"
check_eq json-thresholds-broken 1 "$(q .thresholds_broken)"
# The same run, stopped: it must not read as a complete one.
mkdir "$dir/failed"
"$top/build/tests/fliplat-unit/report-fixture" "$dir/failed" "a flip took too long" ||
	echo "not ok - fixture-failed: exit $?"
check_eq json-failed-status "failed/a flip took too long" "$(jq -r '.status + "/" + .failure' "$dir/failed/run.json" 2>&1)"

# --- CSV ----------------------------------------------------------------------
csv=$dir/run.csv
check_eq csv-rows 51 "$(wc -l <"$csv")"
header_cols=$(head -1 "$csv" | awk -F, '{ print NF }')
check_eq csv-columns 31 "$header_cols"
check_eq csv-every-row-full 0 "$(awk -F, -v n="$header_cols" 'NF != n' "$csv" | wc -l)"
# Column NAME of the row of flip INDEX, found by the header, not by position.
col() {	# NAME INDEX
	awk -F, -v name="$1" -v idx="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		c && $1 == idx { print $c }' "$csv"
}
check_eq csv-warmup-rows 10 "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "warmup") c = i; next }
	c && $c == 1' "$csv" | wc -l)"
check_eq csv-signal-minus-submit-of-flip-7 1007000 "$(col signal_minus_submit_ns 7)"
check_eq csv-event-read-of-flip-7 "$((1000000000 + 20000000 * 7 + 1000000 + 7000 + 80000))" "$(col event_read_ns 7)"
check_eq csv-early-of-flip-33 1 "$(col early 33)"
check_eq csv-early-of-flip-32 0 "$(col early 32)"
check_eq csv-retries-of-flip-12 1 "$(col retries 12)"
check_eq csv-late-unknown-without-ready "" "$(col late 12)"
# wlroots' question: the fence's time minus the event's, the fence waiter's
# wake minus the event reader's.
check_eq csv-signal-minus-event-of-flip-7 0 "$(col signal_minus_event_ns 7)"
check_eq csv-wake-minus-event-read-of-flip-7 -30000 "$(col wake_minus_event_read_ns 7)"

# --- SVG ----------------------------------------------------------------------
svg=$dir/run.svg
check_eq svg-well-formed 0 "$(xmllint --noout "$svg" >/dev/null 2>&1; echo $?)"
# One histogram per time metric observed that varies: signal-submit,
# event-submit, vblank-interval; the constant ones (wake-signal 50,
# event-signal 0, read-event 80, fence-event 0, wake-read -30) are named in
# the header instead.
check_eq svg-histograms 3 "$(grep -c 'class="histogram"' "$svg")"
check_eq svg-constants-named 1 "$(grep -c 'class="constant".*wake-signal 50 us, event-signal 0 us, read-event 80 us, fence-event 0 us, wake-read -30 us' "$svg")"
# 40 counted flips in [p1, p99]: ceil(sqrt(40)) = 7 bins; p99 is the max
# here (nearest rank of 40), so nothing is left out.
check_eq svg-bars 7 "$(awk '/class="histogram"/ { in_it = /data-metric="signal-submit"/ }
	in_it && /class="bar"/ { n++ } END { print n + 0 }' "$svg")"
check_eq svg-outliers "0 0" "$(grep -o 'data-metric="signal-submit"[^>]*' "$svg" | sed 's/.*data-below="\([0-9]*\)" data-above="\([0-9]*\)"/\1 \2/')"
check_eq svg-p50-p99-markers "3 3" "$(grep -c 'class="p50"' "$svg") $(grep -c 'class="p99"' "$svg")"
# The frame timeline: CRTC 40's 20 counted flips, the first 16 and then
# the 4 around its worst (none missed: the longest, the last).
check_eq svg-frame-rows 20 "$(grep -c 'class="frame"' "$svg")"
check_eq svg-frame-windows "first worst" "$(grep -o 'class="frames" data-window="[a-z]*"' "$svg" | sed 's/.*="//; s/"//' | paste -sd' ')"
# The y axis of every histogram has a tick at or above its tallest bar.
check_eq svg-bars-fit-axis 0 "$(awk '
	function done() { if (bars && tick < tallest) bad++; tick = tallest = bars = 0 }
	/class="histogram"/ { done() }
	/text-anchor="end"/ { v = $0; sub(/<\/text>.*/, "", v); sub(/.*>/, "", v); if (v + 0 > tick) tick = v + 0 }
	/class="bar"/ { bars++; v = $0; sub(/.*data-count="/, "", v); sub(/".*/, "", v); if (v + 0 > tallest) tallest = v + 0 }
	/class="timeline"/ { done() }
	END { done(); print bad + 0 }' "$svg")"
check_eq svg-self-contained 0 "$(grep -ciE '<script|href=' "$svg")"

# --- table --------------------------------------------------------------------
table=$dir/table.txt
for m in signal-submit event-submit wake-signal event-signal read-event vblank-interval missed-vblanks; do
	check_eq "table-has-$m" 3 "$(grep -c "^  $m " "$table")"
done
check_eq table-counts 1 "$(grep -c '0 incomplete, 0 fence errors, 4 flips missed 4 vblanks, 1 early .*, 2 EBUSY retries' "$table")"
check_eq table-complete-run 0 "$(grep -c INCOMPLETE "$table")"
check_eq table-failed-run 1 "$(grep -c 'INCOMPLETE RUN: a flip took too long' "$dir/failed/table.txt")"

finish
