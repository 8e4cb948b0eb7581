#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's and syncfw's trace events (Documentation/tracepoints.rst), as
# fliplat --trace records them, tell the truth about a fliplat run, and
# through them the run's timestamps are checked against the kernel's own
# clock:
#
#   every out-fence fliplat read has its flipkms_out_fence_signaled and
#   syncfw_pt_signaled events, with the stamp fliplat read; the trace's own
#   CLOCK_MONOTONIC time of each signal is no earlier than its stamp, and
#   the median is within half a period of it; no commit is latched by a
#   vblank whose ideal time comes before its flush; consecutive vblanks
#   ideal times are one period apart
#
# usage: tests/kms/trace.sh     (lean kernel: the bound is a timing one)
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trace=/sys/kernel/tracing
[ -e $trace/trace ] || mount -t tracefs tracefs $trace 2>/dev/null || trace=/sys/kernel/debug/tracing
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# check_status NAME "TEST-EXPRESSION" MESSAGE: passes if [ TEST-EXPRESSION ] holds.
check_status() {
	# shellcheck disable=SC2086 # the expression's words are test's arguments
	check "$1" "$([ $2 ]; echo $?)" "$3"
}
[ -d $trace/events/flipkms ] && [ -d $trace/events/syncfw ]
check trace-events-exist $? "expected events/flipkms and events/syncfw in $trace"

clock_before=$(cat $trace/trace_clock)
"$top/build/fliplat/fliplat" --no-progress -q --device "$card" --flips 60 --warmup 5 \
	--csv "$tmp/run.csv" --json "$tmp/run.json" --trace "$tmp/trace" >"$tmp/out" 2>&1
rc=$?
check fliplat-runs $rc "exit $rc: $(tail -2 "$tmp/out" | tr '\n' ' ')"
check_eq fliplat-puts-the-trace-clock-back "$clock_before" "$(cat $trace/trace_clock)"
check_eq fliplat-turns-the-events-off-again 0 "$(cat $trace/events/flipkms/enable)"
period=$(jq '.crtcs[0].period_ns' "$tmp/run.json")
half=$(awk -v p="$period" 'BEGIN { printf "%d", p / 2 }')
echo "# $(grep -c ': flipkms_' "$tmp/trace") flipkms and $(grep -c ': syncfw_' "$tmp/trace") syncfw events, period $period ns"

# One line per event: NAME TRACE_TIME_NS key=value..., the trace's time in
# ns from its µs (so up to 999 ns below the truth).
awk '$0 !~ /^#/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
	if (i > NF) next
	t = $i; sub(":", "", t); split(t, p, ".")
	name = $(i + 1); sub(":", "", name)
	printf "%s %s%s000", name, p[1], p[2]
	for (j = i + 2; j <= NF; j++) printf " %s", $j
	print "" }' "$tmp/trace" >"$tmp/events"
# ev NAME KEY: the values of KEY in events NAME, one a line.
ev() { awk -v n="$1" -v k="$2" '$1 == n { for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$tmp/events"; }

# Every signalled out-fence fliplat read, by its stamp.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["signal_ns"] != "" { print $col["signal_ns"] }' "$tmp/run.csv" | sort -u >"$tmp/stamps"
ev flipkms_out_fence_signaled stamp | sort -u >"$tmp/fk"
ev syncfw_pt_signaled timestamp | sort -u >"$tmp/sf"
n=$(wc -l <"$tmp/stamps")
missing_fk=$(comm -23 "$tmp/stamps" "$tmp/fk" | wc -l)
missing_sf=$(comm -23 "$tmp/stamps" "$tmp/sf" | wc -l)
check_status every-fence-has-its-flipkms-event "$n -ge 60 -a $missing_fk -eq 0" \
	"expected an out_fence_signaled event for each of $n stamps, $missing_fk missing"
check_status every-fence-has-its-syncfw-event "$n -ge 60 -a $missing_sf -eq 0" \
	"expected a syncfw_pt_signaled event for each of $n stamps, $missing_sf missing"

# The kernel signalled each at or after its stamp, and soon after.
awk '$1 == "flipkms_out_fence_signaled" { for (i = 3; i <= NF; i++) if ($i ~ /^stamp=/) print $2 - substr($i, 7) }' \
	"$tmp/events" | sort -n >"$tmp/lag"
early=$(awk '$1 < -1000' "$tmp/lag" | wc -l)
median=$(awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : -1 }' "$tmp/lag")
echo "# signal - stamp on the trace's clock: median $median ns, max $(tail -1 "$tmp/lag") ns"
check_status signal-not-before-its-stamp "$early -eq 0" "expected no signal before its stamp, got $early"
check_status signal-within-half-period-of-stamp "$median -ge 0 -a $median -lt $half" \
	"expected the median signal within $half ns of its stamp, got $median"

# No commit latched by a vblank before its flush (a commit to a CRTC that is
# off is done at once, with the last vblank's time: not one of these).
bad=$(awk '$1 == "flipkms_commit_flush" && / active=1/ { for (i = 3; i <= NF; i++) { if ($i ~ /^seqno=/) s = substr($i, 7); if ($i ~ /^flushed=/) f = substr($i, 9) } flushed[s] = f }
	$1 == "flipkms_latch" { for (i = 3; i <= NF; i++) { if ($i ~ /^seqno=/) s = substr($i, 7); if ($i ~ /^vblank=/) v = substr($i, 8) }
		if ((s in flushed) && v + 0 < flushed[s] + 0) bad++; n++ }
	END { print bad + 0, n + 0 }' "$tmp/events")
check_status no-latch-before-flush "${bad% *} -eq 0 -a ${bad#* } -ge 60" \
	"expected every latch (${bad#* }) at a vblank after its flush, ${bad% *} before"

# Vblank ideal times: one period apart for consecutive counts, on CRTC 0
# (when the CRTC is enabled again, the timer starts a new grid).
off=$(awk -v p="$period" '$1 == "flipkms_vblank" { for (i = 3; i <= NF; i++) { if ($i ~ /^count=/) c = substr($i, 7); if ($i ~ /^ideal=/) t = substr($i, 7) }
	if (n++ && c == lc + 1) { d = t - lt - p; if (d < 0) d = -d; if (d > 1000) bad++; pairs++ } lc = c; lt = t }
	END { print bad + 0, pairs + 0 }' "$tmp/events")
check_status vblank-ideal-times-one-period-apart "${off% *} -eq 0 -a ${off#* } -ge 60" \
	"expected ${off#* } consecutive vblanks one period ($period ns) apart, ${off% *} off"
finish
