#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat --trace on flipkms, stopped by SIGINT halfway through a long run:
# while it runs, its events go to a tracefs instance of its own
# (instances/fliplat-PID), not the global buffer; the signal ends the run
# within a second or two, as failed ("stopped by SIGINT", exit 1) with the
# flips so far in its JSON and CSV and their trace written; the instance is
# gone afterwards, and the global trace_clock, events and buffer are as they
# were (a marker written before the run is still there).
#
# usage: tests/fliplat/interrupt.sh
set -u
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
trace=/sys/kernel/tracing
[ -d $trace/instances ] || mount -t tracefs nodev $trace 2>/dev/null
[ -d $trace/instances ] || { skip interrupt "no tracefs instances"; exit 0; }

clock_before=$(cat $trace/trace_clock)
enable_before=$(cat $trace/events/flipkms/enable)
# The marker needs the global buffer on; an earlier test may have left it
# off. Put back as it was at the end.
on_before=$(cat $trace/tracing_on)
echo 1 >$trace/tracing_on
echo "fliplat-interrupt-marker-$$" >$trace/trace_marker

"$fliplat" --no-progress -q --device "$card" --duration 60 --warmup 2 \
	--json "$scratch/run.json" --csv "$scratch/run.csv" --trace "$scratch/trace" \
	>"$scratch/out" 2>&1 &
pid=$!
sleep 3
check_eq own-instance-while-running yes "$([ -d "$trace/instances/fliplat-$pid" ] && echo yes || echo no)"
check_eq global-clock-untouched-while-running "$clock_before" "$(cat $trace/trace_clock)"
kill -INT $pid
start=$(date +%s)
wait $pid
rc=$?
took=$(($(date +%s) - start))
check_eq sigint-exits-1 1 "$rc"
check_eq sigint-stops-soon yes "$([ $took -le 5 ] && echo yes || echo "no: $took s")"
holds sigint-reported-as-stopped run '.status == "failed" and .failure == "stopped by SIGINT" and .flips_counted > 10' \
	"a failed run, stopped by SIGINT, with the flips of 3 s"
check_eq csv-written yes "$([ "$(wc -l <"$scratch/run.csv")" -gt 10 ] && echo yes || echo no)"
check_eq trace-written yes "$(grep -q ': flipkms_' "$scratch/trace" && echo yes || echo no)"
check_eq instance-removed no "$([ -d "$trace/instances/fliplat-$pid" ] && echo yes || echo no)"
check_eq global-clock-as-before "$clock_before" "$(cat $trace/trace_clock)"
check_eq global-events-as-before "$enable_before" "$(cat $trace/events/flipkms/enable)"
check_eq global-buffer-kept 1 "$(grep -c "fliplat-interrupt-marker-$$" $trace/trace)"
echo "$on_before" >$trace/tracing_on
finish
