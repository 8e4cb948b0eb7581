#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat --infence when the render time exceeds the driver's bound on
# in-fence waits: flipkms with infence_timeout_ms=100 and a 250 ms renderer
# shows every flip before its frame is ready. fliplat must count each as
# "unready" (not as missed vblanks judged from the submit), keep its
# renderer in step (each frame's point signalled by its own render timer,
# the next frame submitted after it: every flip shows within the bound
# plus a frame, every ready_ns 250 ms after its submit), and complete. With
# a renderer inside the bound, no flip is unready.
set -u
. "$(dirname "$0")/lib.sh"
param=/sys/module/flipkms/parameters/infence_timeout_ms
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
[ -w $param ] || { echo "not ok - setup: no writable $param"; exit 1; }
old=$(cat $param)
trap 'echo "$old" >$param; rm -rf "$scratch"' EXIT
echo 100 >$param || { echo "not ok - setup: cannot set $param"; exit 1; }
n=4

run beyond --device "$card" --mode 1024x768@60 --infence --render-us 250000 --flips $n --warmup 1
check beyond-runs "$rc" "exit $rc"
holds beyond-complete beyond '.status == "complete"' "expected a complete run"
holds beyond-unready-counted beyond ".counts.unready_flips == $n" "expected all $n flips unready"
holds beyond-late-counted beyond ".counts.late_frames == $n" "expected all $n frames late"
holds beyond-no-missed-judged beyond '.summary["missed-vblanks"].n == 0 and .counts.missed_vblanks == 0' \
	"expected no missed vblanks judged for unready flips"
# Shown at the bound (100 ms) plus at most a frame or two, never after the
# renderer (250 ms): the driver, not the renderer, decided.
holds beyond-shown-at-the-bound beyond '.summary["event-submit"].min >= 100000 and .summary["event-submit"].max < 200000' \
	"expected every flip shown 100 to 200 ms after submit"
# Each frame's own point signalled 250 ms (+ scheduling) after its submit.
bad=$(csv beyond '$col["ready_ns"] == "" || $col["ready_ns"] - $col["submit_ns"] < 250000000 ||
	$col["ready_ns"] - $col["submit_ns"] > 400000000 || $col["unready"] != 1 { bad++ }
	END { print bad + 0 }')
check_eq beyond-renderer-in-step 0 "$bad"

echo 2000 >$param
run within --device "$card" --mode 1024x768@60 --infence --render-us 20000 --flips $n --warmup 1
check within-runs "$rc" "exit $rc"
holds within-none-unready within '.counts.unready_flips == 0 and .summary["missed-vblanks"].n == '$n \
	"expected no unready flip and every flip judged"

finish
