#!/bin/bash
# SPDX-License-Identifier: MIT
# presentlat's metrics and report writers on a run with known contents
# (report-fixture.c): the JSON parses and holds the expected counts and
# summary, the CSV has one row per committed frame with the fate of each,
# the SVG is well-formed, and the table shows every metric and count.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

"$top/build/tests/presentlat-unit/report-fixture" "$dir" || { echo "not ok - fixture: exit $?"; exit 1; }

# --- JSON ---------------------------------------------------------------------
json=$dir/run.json
check_eq json-parses 0 "$(jq empty "$json" >/dev/null 2>&1; echo $?)"
q() { jq -r "$1" "$json" 2>&1; }
# A number to three decimals; anything else as itself, so that a missing
# field (null) cannot pass for 0.000.
num() {
	local v
	v=$(jq -r "$1 | if type == \"number\" then . else \"not a number: \" + tojson end" "$json" 2>&1)
	case $v in
	"not a number"*) echo "$v" ;;
	*) printf '%.3f' "$v" ;;
	esac
}
check_eq json-tool-status presentlat/complete "$(q '.tool + "/" + .status')"
check_eq json-frames "40 36" "$(q '[.frames, .frames_counted] | map(tostring) | join(" ")')"
check_eq json-escaped-display 'fixture "display"' "$(q .system.display)"
check_eq json-clock CLOCK_MONOTONIC "$(q .system.clock)"
check_eq json-config "4 5 50 3000 256x128" "$(q '.config | "\(.warmup) \(.busy_frames) \(.idle_ms) \(.render_us) \(.width)x\(.height)"')"
# Counted frames 4..39: 20 discarded, 39 without feedback, 10 without the
# hardware flags, 30..38 a vblank late.
# Frames 21 (after the discarded 20) and 30 (the slip) come 2 vblanks
# after the frame before; the other 32 presented at the next vblank.
check_eq json-counts "34 1 1 1 9 32" "$(q '.counts | [.presented, .discarded, .without_feedback, .not_vsync_hw, .late, .at_next_vblank] | map(tostring) | join(" ")')"
check_eq json-flags "sce_ s___" "$(q '.flags_any + " " + .flags_every')"
check_eq json-present-commit-n 34 "$(q '.summary["present-commit"].n')"
check_eq json-present-commit-min 15666.667 "$(num '.summary["present-commit"].min')"
check_eq json-present-commit-max 32333.334 "$(num '.summary["present-commit"].max')"
check_eq json-present-commit-p50 15666.667 "$(num '.summary["present-commit"].p50')"
# Frame 21 follows the discarded 20, frame 30 the one-vblank slip: MSC steps of 2.
check_eq json-msc-step-max 2.000 "$(num '.summary["msc-step"].max')"
check_eq json-interval-max 33333.334 "$(num '.summary["present-interval"].max')"
check_eq json-refresh-mean 16666.667 "$(num '.summary["refresh"].mean')"
check_eq json-vblanks-late-max 1.000 "$(num '.summary["vblanks-late"].max')"
check_eq json-units us/vblanks "$(q '.summary["present-commit"].unit + "/" + .summary["msc-step"].unit')"
# A value printf made of a NaN or an infinity, not the letters in a string
# (the command line holds mktemp's random directory name).
check_eq json-no-nan 0 "$(grep -ciE '[:,[] *-?(nan|inf)' "$json")"
# Where it came from, and the CI's verdict.
check_eq json-schema-version 1 "$(q .schema_version)"
check_eq json-tool-version-set true "$(q '.tool_version | type == "string" and length > 0')"
check_eq json-command-line "$top/build/tests/presentlat-unit/report-fixture $dir" "$(q '.command_line | join(" ")')"
check_eq json-started-at 2026-01-02T03:04:05Z "$(q .started_at)"
check_eq json-kernel-release 6.1.0-fixture "$(q .kernel.release)"
check_eq json-thresholds "--max-late 8 9 true/--max-discarded 1 1 false" \
	"$(q '.thresholds | map("\(.option) \(.limit) \(.value) \(.broken)") | join("/")')"
check_eq json-thresholds-broken 1 "$(q .thresholds_broken)"
mkdir "$dir/failed"
"$top/build/tests/presentlat-unit/report-fixture" "$dir/failed" "the compositor stalled" ||
	echo "not ok - fixture-failed: exit $?"
check_eq json-failed-status "failed/the compositor stalled" "$(jq -r '.status + "/" + .failure' "$dir/failed/run.json" 2>&1)"

# --- CSV ----------------------------------------------------------------------
csv=$dir/run.csv
check_eq csv-rows 41 "$(wc -l <"$csv")"
header_cols=$(head -1 "$csv" | awk -F, '{ print NF }')
check_eq csv-every-row-full 0 "$(awk -F, -v n="$header_cols" 'NF != n' "$csv" | wc -l)"
# Column NAME of the row of frame INDEX, found by the header, not by position.
col() {	# NAME INDEX
	awk -F, -v name="$1" -v idx="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		c && $1 == idx { print $c }' "$csv"
}
# Frame 7: shown at 1 s + 8 P, MSC 107, P - 1 ms after its commit, flags 7.
check_eq csv-presented-of-frame-7 "1 1133333336 15666667 107 7" \
	"$(col presented 7) $(col presented_ns 7) $(col present_minus_commit_ns 7) $(col msc 7) $(col flags 7)"
check_eq csv-slipped-frame-31 "132 32333334" "$(col msc 31) $(col present_minus_commit_ns 31)"
check_eq csv-discarded-frame-20 "0 1 " "$(col presented 20) $(col discarded 20) $(col presented_ns 20)"
check_eq csv-pending-frame-39 "0 " "$(col presented 39) $(col discarded 39)"
check_eq csv-warmup-rows 4 "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "warmup") c = i; next }
	c && $c == 1' "$csv" | wc -l)"

# --- SVG ----------------------------------------------------------------------
svg=$dir/run.svg
check_eq svg-well-formed 0 "$(xmllint --noout "$svg" >/dev/null 2>&1; echo $?)"
# One histogram per time metric observed that varies: present-commit,
# present-interval; refresh, the same in every frame, is named in the header.
check_eq svg-histograms 2 "$(grep -c 'class="histogram"' "$svg")"
check_eq svg-constant-refresh 1 "$(grep -c 'class="constant".*refresh 16666.7 us' "$svg")"
# The frame timeline: frames 4-19, then 22-37 around the worst, frame 30:
# it was shown 2 vblanks after frame 29 and one after the first vblank
# after its commit. Frames 31-38 came one vblank after their commit's
# first vblank too, but at the vblank after the previous frame's: no
# vblank they could have made, so no red mark.
check_eq svg-frame-rows 32 "$(grep -c 'class="frame"' "$svg")"
check_eq svg-late-frames 1 "$(grep -c 'class="late"' "$svg")"
check_eq svg-late-is-frame-30 1 "$(grep -c 'data-index="30" data-missed="1"' "$svg")"
check_eq svg-vblank-lines-first-window 17 "$(awk '/data-window="worst"/ { exit } /class="vblank"/ { n++ } END { print n + 0 }' "$svg")"
check_eq svg-self-contained 0 "$(grep -ciE '<script|href=' "$svg")"

# --- table --------------------------------------------------------------------
table=$dir/table.txt
for m in present-commit present-interval refresh msc-step vblanks-late; do
	check_eq "table-has-$m" 1 "$(grep -c "^  $m " "$table")"
done
check_eq table-counts 1 "$(grep -c '34 presented, 1 discarded, 1 without feedback, 1 not VSYNC|HW_CLOCK|HW_COMPLETION, 9 after the first vblank after commit, 32 at the vblank after the previous frame' "$table")"
check_eq table-pattern 1 "$(grep -c '256x128 shm, 5 frames then 50 ms idle, render 3000 us' "$table")"
check_eq table-complete-run 0 "$(grep -c INCOMPLETE "$table")"
check_eq table-failed-run 1 "$(grep -c 'INCOMPLETE RUN: the compositor stalled' "$dir/failed/table.txt")"

finish
