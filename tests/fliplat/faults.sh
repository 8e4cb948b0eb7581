#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's fault injection shows up in fliplat's figures as exactly the
# injected amount:
#   signal_delay_us=3000  fences signal 3 ms after their event: event-signal
#                         is -3000 us, to the event's microsecond
#   drop_vblanks=3        (during a run) one flip lands 3 vblanks late: one
#                         flip with missed-vblanks == 3 (4 if it missed one
#                         on its own as well), none with more
#   fence_error=5         (during a run) one flip's fence signals with -EIO
#                         (-5), in the CSV
#
# usage: tests/fliplat/faults.sh
set -u
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
ctl=/sys/kernel/debug/dri/${card#/dev/dri/card}/crtc-0

echo 3000 >"$ctl/signal_delay_us"
run delay --device "$card" --flips 30 --warmup 3
echo 0 >"$ctl/signal_delay_us"
check delay-runs "$rc" "exit $rc"
holds delay-shifts-signal-by-3000-us delay \
	'.summary["event-signal"].min >= -3001 and .summary["event-signal"].max <= -2999' \
	"expected event - signal = -3000 us"
holds delay-keeps-wake-after-signal delay '.summary["wake-signal"].min >= 0' "expected wake >= signal"

# Injected once fliplat is flipping (10 flips latched), not before its modeset.
base=$(latched "$ctl")
"$fliplat" --no-progress -q --device "$card" --duration 2 --warmup 3 \
	--json "$scratch/drop.json" --csv "$scratch/drop.csv" >"$scratch/drop.out" 2>&1 &
pid=$!
latched_more "$ctl" "$base" 10 || echo "# drop: fliplat latched no 10 flips in 10 s"
echo 3 >"$ctl/drop_vblanks"
wait $pid
rc=$?
check drop-runs "$rc" "exit $rc"
# One flip lands 3 vblanks late. flipkms never latches a commit with a vblank
# earlier than its flush, so a flip that also missed a vblank on its own (a
# slow TCG frame) shows 4: exactly one flip at 3 or 4, none later.
three=$(csv drop '$col["missed_vblanks"] == 3 || $col["missed_vblanks"] == 4' | wc -l)
more=$(csv drop '$col["missed_vblanks"] > 4' | wc -l)
check drop-shows-as-3-missed-vblanks "$([ "$three" -eq 1 ] && [ "$more" -eq 0 ]; echo $?)" \
	"expected one flip with 3 missed vblanks (4 if it also missed one), got $(csv drop '$col["missed_vblanks"] > 0 { printf "%s ", $col["missed_vblanks"] }')"

# Set during the run: fliplat's own modeset would otherwise take the error.
base=$(latched "$ctl")
"$fliplat" --no-progress -q --device "$card" --duration 1.5 --warmup 0 \
	--csv "$scratch/error.csv" >"$scratch/error.out" 2>&1 &
pid=$!
latched_more "$ctl" "$base" 10 || echo "# error: fliplat latched no 10 flips in 10 s"
echo 5 >"$ctl/fence_error"
wait $pid
rc=$?
check error-run-completes "$rc" "exit $rc"
errors=$(csv error '$col["fence_error"] == -5' | wc -l)
check fence-error-reported "$([ "$errors" = 1 ]; echo $?)" "expected one flip with fence_error -5, got $errors"

finish
