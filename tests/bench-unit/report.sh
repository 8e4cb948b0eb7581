#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/bench-report on made-up rounds (no guest): the round files
# tests/bench/guest.sh writes, for 7 rounds of every measurement, with
# 5 % noise per round and side. Three runs:
#
#   same       both sides run "the same code": identical figures in every
#              round: every compared row reads "no difference"
#   aa         both sides from one distribution, independent noise: still
#              "no difference" everywhere
#   different  flipfence takes half the time, makes twice the rate and
#              offsets 10 units higher: every compared row reads better
#              (offsets: higher); highrate3, compose-rot90 and compose-nv12(-color)
#              are flipkms only
#   void       "different" whose A/A control reads a difference: the
#              report says no verdict stands
#   failed     "different" with flipfence's fliplat round 3 failed and
#              mainline's presentlat round 5 missing: the report names
#              both, the rows say 6 of 7 rounds, verdicts stand, exit 0
#
# usage: tests/bench-unit/report.sh [KEEP-DIR]   (KEEP-DIR: leave the four
# results directories and their reports there, to read them)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -gt 0 ]; then
	dir=$1
	mkdir -p "$dir" || exit 1
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

rounds=7
# Fixed noise, one z a round and side: exp(0.05 z).
z_flipfence=(0.3 -1.2 0.8 1.5 -0.4 -0.9 0.1)
z_mainline=(-0.7 0.5 1.1 -1.4 0.2 0.9 -0.3)

# round FILE SCALE RATE OFFSET: one round of every figure scripts/bench-report
# reads, times multiplied by SCALE, rates by RATE, offsets raised by OFFSET.
round() {
	jq -n --argjson t "$2" --argjson r "$3" --argjson o "$4" '{
		create_signal_wait_ns: (18000 * $t),
		merge: [{ merge_ns: (7500 * $t) }, { merge_ns: (73000 * $t) },
			{ merge_ns: (460000 * $t) }, { merge_ns: (4500000 * $t) }],
		inc_pending: [{ inc_ns: (500 * $t) }, { inc_ns: (600 * $t) }, { inc_ns: (900 * $t) }],
		summary: {
			"signal-submit": { p50: (16000 * $t), p99: (16300 * $t) },
			"wake-signal": { p50: (230 * $t), p99: (1000 * $t) },
			"event-signal": { p50: (-0.5 + $o) },
			"fence-event": { p50: (0.5 + $o), max: (0.9 + $o) },
			"wake-read": { p50: (-60 + 10 * $o) },
			"vblank-interval": { stddev: (0.5 + $o) },
			"missed-vblanks": { mean: (0.01 * $o) },
			"present-commit": { p50: (21000 * $t), p99: (22000 * $t) } },
		flips_counted: 2000,
		counts: { missed_vblanks: (2 + 10 * $o), presented: 300, msc_unknown: 0,
			  at_next_vblank: (120 * $r | floor) },
		frames_per_s: (6 * $r), frames_per_vblank: (0.1 * $r), fps: (9 * $r) }' >"$1"
}

# run NAME FLIPFENCE-SCALE FLIPFENCE-RATE FLIPFENCE-OFFSET SHARED [CONTROL-RATE]:
# a results directory with 7 rounds of both sides (SHARED: both sides' noise
# is flipfence's, so identical figures when the rest is 1 1 0); the A/A
# control row's first side makes CONTROL-RATE times the rate (default 1).
run() {
	local d=$dir/$1 i name z_f z_m
	mkdir -p "$d"
	jq -n --argjson rounds $rounds '{ guest_cpus: 2, kernel: "6.1.0-test", flavour: "bench",
		rounds: $rounds, flips: 300, order: "flipfence first in odd rounds, mainline first in even ones",
		guest_load_at_start: "0.00 0.00 0.00", guest_load_at_end: "1.00 0.50 0.20" }' >"$d/system.json"
	for i in $(seq $rounds); do
		z_f=${z_flipfence[i - 1]}
		z_m=${z_mainline[i - 1]}
		[ "$5" = shared ] && z_m=$z_f
		for name in sync fliplat compose control compose-rot90 compose-nv12 compose-nv12-color presentlat kmscube highrate highrate3; do
			# The A/A control is the same code on both sides, unless
			# the run says otherwise (CONTROL-SCALE).
			if [ $name = control ]; then
				round "$d/$name-flipfence-$i.json" 1 "$(awk -v s="${6:-1}" -v z="$z_f" 'BEGIN { print s * exp(-0.05 * z) }')" 0
			else
				round "$d/$name-flipfence-$i.json" \
					"$(awk -v s="$2" -v z="$z_f" 'BEGIN { print s * exp(0.05 * z) }')" \
					"$(awk -v s="$3" -v z="$z_f" 'BEGIN { print s * exp(-0.05 * z) }')" "$4"
			fi
			case $name in highrate3 | compose-rot90 | compose-nv12*) continue ;; esac
			round "$d/$name-mainline-$i.json" \
				"$(awk -v z="$z_m" 'BEGIN { print exp(0.05 * z) }')" \
				"$(awk -v z="$z_m" 'BEGIN { print exp(-0.05 * z) }')" 0
		done
	done
}

report() {	# NAME: scripts/bench-report on it; its exit status
	"$top/scripts/bench-report" "$dir/$1" >"$dir/$1.out" 2>&1
}
# verdicts NAME: the compared rows' distinct verdicts, sorted, one line.
verdicts() {
	jq -r '[.rows[] | select(.compared) | .verdict] | unique | join(",")' "$dir/$1/report.json" 2>&1
}

run same 1 1 0 shared
report same
check_eq same-exit 0 "$?"
check_eq same-no-difference "no difference" "$(verdicts same)"
check_eq same-ratio-1 "1" "$(jq -r '[.rows[] | select(.compared and .kind != "offset") | .ratio] | unique | join(",")' "$dir/same/report.json")"
check_eq same-rounds-read-from-system-json 7 "$(jq -r '.rows[0].pairs' "$dir/same/report.json")"
check_eq same-complete true "$(jq -r .complete "$dir/same/report.json")"
check_eq same-txt-states-the-test 1 "$(grep -c 'Student t at a family-wise error of 5 %' "$dir/same/report.txt")"
check_eq same-svg-well-formed 0 "$(xmllint --noout "$dir/same/report.svg" >/dev/null 2>&1; echo $?)"

run aa 1 1 0 independent
report aa
check_eq aa-exit 0 "$?"
check_eq aa-no-difference "no difference" "$(verdicts aa)"

run different 0.5 2 10 independent
report different
check_eq different-exit 0 "$?"
check_eq different-times-and-rates-better "flipfence better" \
	"$(jq -r '[.rows[] | select(.compared and .kind != "offset" and .group != "control") | .verdict] | unique | join(",")' "$dir/different/report.json")"
check_eq different-offsets-higher "flipfence higher" \
	"$(jq -r '[.rows[] | select(.compared and .kind == "offset") | .verdict] | unique | join(",")' "$dir/different/report.json")"
check_eq different-composer-ratio-2 2 "$(jq -r '.rows[] | select(.group == "composer" and (.name | startswith("frames/s"))) | .ratio * 10 | round / 10' "$dir/different/report.json")"
check_eq different-highrate3-apart "flipkms only" \
	"$(jq -r '[.rows[] | select(.group == "highrate3") | .verdict] | unique | join(",")' "$dir/different/report.json")"
check_eq different-rows-decided "$(jq '[.rows[] | select(.compared)] | length' "$dir/different/report.json")" \
	"$(jq -r .method.rows_decided "$dir/different/report.json")"

check_eq different-control-no-difference "no difference" \
	"$(jq -r '.rows[] | select(.group == "control") | .verdict' "$dir/different/report.json")"
check_eq different-not-void 0 "$(grep -c '^VOID' "$dir/different/report.txt")"

run void 0.5 2 10 independent 2
report void
check_eq void-exit 0 "$?"
check_eq void-flagged true "$(jq -r .void "$dir/void/report.json")"
check_eq void-txt-says-so 1 "$(grep -c '^VOID: the A/A control (flipkms against itself) reads "flipfence better"' "$dir/void/report.txt")"

mkdir -p "$dir/failed"
cp "$dir/different/"*-[0-9].json "$dir/different/system.json" "$dir/failed/"
jq -n '{ failed: true, side: "flipfence", round: 3, error: "exit 1" }' >"$dir/failed/fliplat-flipfence-3.json"
rm "$dir/failed/presentlat-mainline-5.json"
report failed
check_eq failed-round-not-fatal 0 "$?"
check_eq failed-rounds-named "fliplat flipfence 3 exit 1,presentlat mainline 5 no result file" \
	"$(jq -r '[.failed_rounds[] | "\(.name) \(.side) \(.round) \(.error)"] | join(",")' "$dir/failed/report.json")"
check_eq failed-txt-says-so 1 "$(grep -c '^FAILED ROUNDS (left out of their rows): fliplat flipfence round 3 (exit 1), presentlat mainline round 5 (no result file)' "$dir/failed/report.txt")"
check_eq failed-rows-count-6-of-7 "6 1 false" \
	"$(jq -r '.rows[] | select(.group == "fliplat" and .name == "wake-signal p50") | "\(.pairs) \(.failed) \(.complete)"' "$dir/failed/report.json")"
check_eq failed-verdicts-stand "flipfence better" \
	"$(jq -r '.rows[] | select(.group == "presentlat" and .name == "commit-present p50") | .verdict' "$dir/failed/report.json")"
check_eq failed-run-incomplete false "$(jq -r .complete "$dir/failed/report.json")"
check_eq failed-txt-row-says-rounds 1 "$(grep -c 'wake-signal p50 .*flipfence better (6 of 7 rounds)' "$dir/failed/report.txt")"

finish
