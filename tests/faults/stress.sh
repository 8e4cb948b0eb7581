#!/bin/bash
# SPDX-License-Identifier: MIT
# Fence stress (stress.c) while fliplat flips every CRTC of flipkms (loaded
# with outputs=3 by the manifest): the fences check out and so do the
# flips (fliplat exits 0 with every CRTC's flips signalled in order).
#
# usage: tests/faults/stress.sh SECONDS
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-10}
json=$(mktemp)
trap 'rm -f "$json"' EXIT

"$top/build/fliplat/fliplat" --no-progress -q --crtcs all --duration "$seconds" --warmup 0 \
	--json "$json" >/dev/null 2>&1 &
flipper=$!
"$top/build/tests/faults/stress" -t 6 -s "$seconds"
rc=$?
wait $flipper
frc=$?
if [ $frc -eq 0 ] && [ "$(jq '[.crtcs[].summary["signal-submit"].n] | all(. > 0)' "$json")" = true ]; then
	echo "ok - flips-run-on-every-crtc-meanwhile"
	echo "# flips: $(jq -c '[.crtcs[] | {crtc: .crtc_id, n: .summary["signal-submit"].n}]' "$json")"
else
	echo "not ok - flips-run-on-every-crtc-meanwhile: fliplat exit $frc"
	rc=1
fi
exit $rc
