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
# The runs count flips (--flips), and each injection is checked consumed
# by flipkms before the run's last flips (else that run is done again): a
# fault set after the run ended proves nothing and would hit the next
# test. A trap disarms every fault however the test ends.
#
# usage: tests/fliplat/faults.sh
set -u
# shellcheck source=tests/fliplat/lib.sh
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
ctl=/sys/kernel/debug/dri/${card#/dev/dri/card}/crtc-0

# Whatever ends this test (its checks, a failure, the runner's timeout), no
# fault stays armed for the next test.
reset_faults() {
	local f
	for f in signal_delay_us drop_vblanks fence_error; do
		echo 0 >"$ctl/$f"
	done
}
trap 'reset_faults; rm -rf "$scratch"' EXIT
trap 'exit 143' TERM INT

echo 3000 >"$ctl/signal_delay_us"
run delay --device "$card" --flips 30 --warmup 3
echo 0 >"$ctl/signal_delay_us"
check delay-runs "$rc" "exit $rc"
holds delay-shifts-signal-by-3000-us delay \
	'.summary["event-signal"].min >= -3001 and .summary["event-signal"].max <= -2999' \
	"expected event - signal = -3000 us"
holds delay-keeps-wake-after-signal delay '.summary["wake-signal"].min >= 0' "expected wake >= signal"

# flipped RUN FLIPS FILE VALUE: fliplat flips FLIPS (and 3 warm-up) into
# $scratch/RUN.*; once it has latched 10, FILE is set to VALUE. Status 0 if
# flipkms consumed the fault (FILE reads 0 again) while at least 2 of the
# run's flips were still to come, so that it landed inside the run; 10 if it
# landed after, or was never consumed (then it is disarmed); else fliplat's.
flipped() {
	local name=$1 flips=$2 file=$3 value=$4 base pid consumed=1 at
	base=$(flipkms_flips "$ctl")
	"$fliplat" --no-progress -q --device "$card" --flips "$flips" --warmup 3 \
		--json "$scratch/$name.json" --csv "$scratch/$name.csv" >"$scratch/$name.out" 2>&1 &
	pid=$!
	flipkms_flips_more "$ctl" "$base" 10 || echo "# $name: fliplat latched no 10 flips in 10 s"
	echo "$value" >"$ctl/$file"
	for _ in $(seq 100); do
		[ "$(cat "$ctl/$file")" = 0 ] && { consumed=0; break; }
		sleep 0.05
	done
	at=$(flipkms_flips "$ctl")
	wait $pid || return
	if [ $consumed -ne 0 ] || [ $((at - base)) -gt $((flips + 3 - 2)) ]; then
		echo "# $name: $file=$value consumed: $([ $consumed -eq 0 ] && echo yes || echo no), at flip $((at - base)) of $((flips + 3))"
		echo 0 >"$ctl/$file"
		return 10
	fi
}
# drop_count OP N: the flips whose missed_vblanks OP N.
drop_count() {
	csv drop "\$col[\"missed_vblanks\"] $1 $2" | wc -l
}
# The flip the drop hits lands exactly 3 vblanks late. The dropped vblanks
# give a late flush 3 more periods to make it, so only a flip that had
# already missed its vblank on its own when the drop began shows 4: that
# run says nothing about the 3, and is run again (at most 3 runs), as is a
# run the drop did not land in. Any other count fails at once.
verdict=
for attempt in 1 2 3; do
	flipped drop 120 drop_vblanks 3
	rc=$?
	[ $rc -eq 10 ] && { verdict="the drop did not land inside the run"; continue; }
	[ $rc -eq 0 ] || { verdict="fliplat exit $rc"; break; }
	three=$(drop_count '==' 3) four=$(drop_count '==' 4) more=$(drop_count '>' 4)
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
for attempt in 1 2 3; do
	flipped error 90 fence_error 5
	rc=$?
	[ $rc -eq 10 ] || break
done
check error-run-completes "$rc" "exit $rc$([ "$rc" -eq 10 ] && echo ": the error did not land inside any of 3 runs")"
errors=$(csv error '$col["fence_error"] == -5' | wc -l)
check fence-error-reported "$([ "$errors" = 1 ]; echo $?)" "expected one flip with fence_error -5, got $errors"

finish
