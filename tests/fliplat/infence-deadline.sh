#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat --infence reads the deadline the display set on each frame's
# in-fence (Documentation/fliplat.rst, "Deadlines"), checked against the
# kernel's own record of when the commit worker began to wait for each
# in-fence (dma_fence:dma_fence_wait_start, on CLOCK_MONOTONIC; the helpers
# set the deadline just before that wait, and only on an unsignalled fence):
#
#   both series: the run completes, and the worker waited for enough
#   in-fences before the renderer signalled them to judge by;
#   6.12 series (fence deadlines): each of those flips has a deadline, and
#   only those; each deadline lies after its flip's submit and within 2
#   frame periods of it; the CSV's slack is deadline - ready, and the
#   JSON's "deadlines" summary is the CSV's flips counted;
#   6.1 series (no deadlines, by design): "not supported" said once, in
#   the JSON too, and no deadline recorded.
# shellcheck disable=SC2016 # single-quoted awk and jq programs
set -u
# shellcheck source=tests/fliplat/lib.sh
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
series=${FLIPFENCE_KERNEL_SERIES:-$(uname -r | cut -d. -f1,2)}
tracefs=/sys/kernel/tracing
[ -e $tracefs/instances ] || mount -t tracefs tracefs $tracefs 2>/dev/null ||
	tracefs=/sys/kernel/debug/tracing
# A trace instance of our own: its clock and events leave the global ones alone.
inst=$tracefs/instances/infence-deadline-$$
mkdir "$inst" || { echo "not ok - setup: cannot make trace instance $inst"; exit 1; }
trap 'echo 0 >"$inst/events/enable"; rmdir "$inst"; rm -rf "$scratch"' EXIT
echo mono >"$inst/trace_clock"
echo 4096 >"$inst/buffer_size_kb"
echo 1 >"$inst/events/dma_fence/dma_fence_wait_start/enable" ||
	{ echo "not ok - setup: no dma_fence:dma_fence_wait_start event"; exit 1; }

run deadline --device "$card" --mode 1024x768@60 --infence --duration 4 --warmup 5
check runs "$rc" "exit $rc"
echo 0 >"$inst/events/enable"
holds complete deadline '.status == "complete"' "expected a complete run"
# The worker's waits on fliplat's sw_sync fences, "SEQNO NS" (the trace's
# µs): on its one CRTC, frame k's point has seqno k + 1.
sed -n 's/.* \([0-9]*\)\.\([0-9]\{6\}\): dma_fence_wait_start: driver=sw_sync timeline=fliplat .*seqno=\([0-9]*\).*/\3 \1\2000/p' \
	"$inst/trace" >"$scratch/waits"
# judged AWK-PROGRAM: AWK-PROGRAM over the CSV rows, with waited = 1 if
# the worker began to wait before the renderer signalled (the fence was
# unsignalled), 0 if after or never, and the rows where the trace's
# microsecond and fliplat's read-then-signal cannot tell left out (read).
judged() {
	awk -F, -v period="$(jqt deadline '.crtcs[0].period_ns')" '
		NR == FNR { split($0, w, " "); wait[w[1] - 1] = w[2]; next }
		FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["ready_ns"] == "" { next }
		{
			k = $col["index"]; ready = $col["ready_ns"]; waited = 0
			if (k in wait) {
				if (ready - wait[k] > -20000 && ready - wait[k] < 20000) { close_calls++; next }
				waited = wait[k] < ready
			}
		}
		'"$1" "$scratch/waits" "$scratch/deadline.csv"
}
counts=$(judged '{ n[waited]++ } END { print n[1] + 0, n[0] + 0, close_calls + 0 }')
read -r unsignalled signalled close_calls <<<"$counts"
echo "# $series: $unsignalled flips waited for unsignalled, $signalled signalled or not waited for, $close_calls too close to tell"
check_eq_at_least() { if [ "$3" -ge "$2" ]; then pass "$1"; else fail "$1" "expected at least $2, got $3"; fi; }
check_eq_at_least waited-for-unsignalled 10 "$unsignalled"

if [ "$series" = 6.1 ]; then
	holds unsupported-in-json deadline '.deadlines.supported == false and .deadlines.with_deadline == 0' \
		"expected \"supported\": false and no deadline"
	check_eq unsupported-said-once 1 "$(grep -c '^fliplat: deadlines: not supported by this kernel$' "$scratch/deadline.out")"
	check_eq no-deadline-recorded 0 "$(csv deadline '$col["deadline_ns"] != "" || $col["deadline_slack_ns"] != ""' | wc -l)"
	finish
	exit
fi

# Where a check finds flips it should not: how many, the first few.
some='{ if (++n <= 5) first = first " " $col["index"] } END { if (n) printf "%d flips:%s", n, first }'
holds supported deadline '.deadlines.supported == true' "expected \"supported\": true on $series"
# Set when the worker waited for an unsignalled fence, never otherwise.
check_eq unsignalled-have-deadline "" "$(judged 'waited && $col["deadline_ns"] == "" '"$some")"
check_eq signalled-have-none "" "$(judged '!waited && $col["deadline_ns"] != "" '"$some")"
# The vblank the commit must make: after submit, within 2 frames.
check_eq deadline-after-submit-within-2-frames "" "$(csv deadline -v period="$(jqt deadline '.crtcs[0].period_ns')" \
	'$col["deadline_ns"] != "" && ($col["deadline_ns"] <= $col["submit_ns"] ||
	 $col["deadline_ns"] > $col["submit_ns"] + 2 * period) '"$some")"
check_eq slack-is-deadline-minus-ready "" "$(csv deadline '$col["deadline_ns"] != "" &&
	$col["deadline_slack_ns"] != $col["deadline_ns"] - $col["ready_ns"] '"$some")"
# The JSON's summary counts the CSV's counted flips; slack min/max in µs.
check_eq json-summary-is-the-csvs "$(csv deadline '$col["warmup"] == 0 && $col["ready_ns"] != "" {
		if ($col["deadline_ns"] == "") { without++; next }
		s = $col["deadline_slack_ns"]; with++; past += s < 0
		if (with == 1 || s < min) min = s; if (with == 1 || s > max) max = s }
	END { printf "%d %d %d %.3f %.3f", with, without, past, min / 1000, max / 1000 }')" \
	"$(jqt deadline '.deadlines | "\(.with_deadline) \(.without_deadline) \(.past_deadline) \(.slack_us.min) \(.slack_us.max)"' |
	awk '{ printf "%s %s %s %.3f %.3f", $1, $2, $3, $4, $5 }')"
finish
