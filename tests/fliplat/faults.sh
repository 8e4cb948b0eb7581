#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's fault injection shows up in fliplat's figures as exactly the
# injected amount:
#   signal_delay_us=3000  fences signal 3 ms after their event: event-signal
#                         is -3000 us, to the event's microsecond
#   drop_vblanks=3        (during a run) one flip lands 3 vblanks late: one
#                         flip with missed-vblanks == 3, none with more
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
drop_run() {
	local base pid
	base=$(flipkms_flips "$ctl")
	"$fliplat" --no-progress -q --device "$card" --duration 2 --warmup 3 \
		--json "$scratch/drop.json" --csv "$scratch/drop.csv" >"$scratch/drop.out" 2>&1 &
	pid=$!
	flipkms_flips_more "$ctl" "$base" 10 || echo "# drop: fliplat latched no 10 flips in 10 s"
	echo 3 >"$ctl/drop_vblanks"
	wait $pid
}
# drop_count OP N: the flips whose missed_vblanks OP N.
drop_count() {
	csv drop "\$col[\"missed_vblanks\"] $1 $2" | wc -l
}
# The flip the drop hits lands exactly 3 vblanks late. The dropped vblanks
# give a late flush 3 more periods to make it, so only a flip that had
# already missed its vblank on its own when the drop began shows 4: that
# run says nothing about the 3, and is run again (at most 3 runs). Any
# other count fails at once.
verdict=
for attempt in 1 2 3; do
	drop_run
	rc=$?
	[ $rc -eq 0 ] || { verdict="fliplat exit $rc"; break; }
	three=$(drop_count == 3) four=$(drop_count == 4) more=$(drop_count '>' 4)
	if [ "$three" -eq 1 ] && [ "$four" -eq 0 ] && [ "$more" -eq 0 ]; then
		verdict=ok
		break
	fi
	verdict="missed vblanks of the late flips: $(csv drop '$col["missed_vblanks"] > 0 { printf "%s ", $col["missed_vblanks"] }')"
	[ "$three" -eq 0 ] && [ "$four" -eq 1 ] && [ "$more" -eq 0 ] || break
	echo "# drop run $attempt: the flip had missed a vblank of its own as well (4); again"
done
check drop-shows-as-exactly-3-missed-vblanks "$([ "$verdict" = ok ]; echo $?)" \
	"expected one flip with exactly 3 missed vblanks, got $verdict"

# Set during the run: fliplat's own modeset would otherwise take the error.
base=$(flipkms_flips "$ctl")
"$fliplat" --no-progress -q --device "$card" --duration 1.5 --warmup 0 \
	--csv "$scratch/error.csv" >"$scratch/error.out" 2>&1 &
pid=$!
flipkms_flips_more "$ctl" "$base" 10 || echo "# error: fliplat latched no 10 flips in 10 s"
echo 5 >"$ctl/fence_error"
wait $pid
rc=$?
check error-run-completes "$rc" "exit $rc"
errors=$(csv error '$col["fence_error"] == -5' | wc -l)
check fence-error-reported "$([ "$errors" = 1 ]; echo $?)" "expected one flip with fence_error -5, got $errors"

finish
