#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat --crtcs all flips every connected output at once: one CRTC entry
# per output in the JSON, each with all its flips signalled, on distinct
# CRTCs.
#
# usage: tests/fliplat/multi-crtc.sh   (flipkms loaded with outputs=3)
set -u
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
# Writeback connectors are outputs no CRTC scans out to a display: not ours.
outputs=$(ls -d /sys/class/drm/card"${card#/dev/dri/card}"-* | grep -vc -- -Writeback-)

run all --device "$card" --crtcs all --flips 20 --warmup 2
check multi-runs "$rc" "exit $rc"
holds multi-one-entry-per-output all ".crtcs | length == $outputs" "expected $outputs CRTCs"
holds multi-crtcs-distinct all '([.crtcs[].crtc_id] | unique | length) == (.crtcs | length)' \
	"expected each output on its own CRTC"
holds multi-every-crtc-flipped all '[.crtcs[].summary["signal-submit"].n] | all(. == 20)' \
	"expected 20 signalled flips on every CRTC"
holds multi-wake-after-signal all '.summary["wake-signal"].min >= 0' "expected wake >= signal"
finish
