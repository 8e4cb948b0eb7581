#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat --async and --vrr on DRIVER's card. On flipkms: tearing flips are
# shown after submit and within a frame of it (the event's own time, at the
# flush), and paced flips on a VRR_ENABLED CRTC follow the refresh model
# (no breaks, every kind of refresh met: at the flush, one period after the
# last, after repeated frames). On a driver without them (vkms): both are
# refused as unsupported (exit 6) with a message that says why.
#
# usage: tests/fliplat/vrr-async.sh DRIVER
set -u
# shellcheck source=tests/fliplat/lib.sh
. "$(dirname "$0")/lib.sh"
driver=${1:?usage: $0 DRIVER}
card=$(card_of "$driver") || { echo "not ok - setup: no $driver card"; exit 1; }

if [ "$driver" != flipkms ]; then
	run async --device "$card" --flips 5 --async
	check_eq async-refused 6 "$rc"
	check_eq async-says-why 1 "$(grep -c 'DRM_CAP_ASYNC_PAGE_FLIP is 0' "$scratch/async.out")"
	run vrr --device "$card" --flips 5 --vrr
	check_eq vrr-refused 6 "$rc"
	check_eq vrr-says-why 1 "$(grep -c 'is not vrr_capable' "$scratch/vrr.out")"
	exit 0
fi

run async --device "$card" --flips 30 --warmup 3 --async
check async-runs "$rc" "exit $rc"
holds async-names-mode async '.config.mode == "async" and .status == "complete" and .counts.incomplete_flips == 0' \
	"expected a complete async run"
# Flip to scanout: after submit, and (a tearing flip is latched at its
# flush) sooner than the next vblank's latch could be, one frame.
holds async-event-after-submit async '.summary["event-submit"].min > 0' "expected event > submit"
holds async-sooner-than-a-frame async \
	'.summary["event-submit"].p50 < .crtcs[0].period_ns / 1000' \
	"expected most tearing flips shown within a frame of submit"

# 120 Hz inside the default 48-144 Hz: 10 flips make one sweep of the pace.
run vrr --device "$card" --refresh 120 --flips 30 --warmup 3 --vrr --max-vrr-breaks 0
check vrr-runs "$rc" "exit $rc"
holds vrr-range-from-edid vrr '.config.vrr and .crtcs[0].vrr_min_hz == 48 and .crtcs[0].vrr_max_hz == 144' \
	"expected the EDID's 48-144 Hz"
holds vrr-no-breaks vrr '.counts.vrr_judged >= 30 and .counts.vrr_breaks == 0' \
	"expected every refresh judged and none breaking the model"
# Each kind of refresh met at least once: 1 at the flush, 2 waited, 3 repeated.
# shellcheck disable=SC2016 # awk fields, not shell
for kind in 1 2 3; do
	check_eq "vrr-kind-$kind-met" 1 \
		"$(csv vrr -v kind="$kind" '$col["vrr_kind"] == kind { n++ } END { print (n > 0) }')"
done

# The check catches a driver that breaks the model: vrr_hold holds the next
# 3 flips to the end of the longest frame instead of their flush.
ctl=/sys/kernel/debug/dri/${card#/dev/dri/card}/crtc-0
if echo 3 >"$ctl/vrr_hold" 2>/dev/null; then
	run held --device "$card" --refresh 120 --flips 20 --warmup 0 --vrr --max-vrr-breaks 0
	check_eq held-exits-threshold 7 "$rc"
	holds held-breaks-counted held '.counts.vrr_breaks >= 1' "expected the held refreshes to break the model"
	echo 0 >"$ctl/vrr_hold"
else
	fail held-fault "cannot write $ctl/vrr_hold"
fi
