#!/bin/bash
# SPDX-License-Identifier: MIT
# Fence stress (stress.c) while fliplat flips every CRTC of flipkms (loaded
# with outputs=3 by the manifest): the fences check out, and so do the
# flips: fliplat completes, every CRTC flipped, and on each CRTC the
# out-fences signalled in commit order (from fliplat's CSV).
#
# usage: tests/faults/stress.sh SECONDS
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$top/build/fliplat/fliplat" --no-progress -q --crtcs all --duration "$seconds" --warmup 0 \
	--json "$tmp/run.json" --csv "$tmp/run.csv" >"$tmp/out" 2>&1 &
flipper=$!
"$top/build/tests/faults/stress" -t 6 -s "$seconds" || failures=$((failures + 1))
wait $flipper
frc=$?
if [ $frc -ne 0 ]; then
	fail flips-run-on-every-crtc-meanwhile "fliplat exit $frc: $(tail -3 "$tmp/out" | tr '\n' ' ')"
	finish
	exit
fi
crtcs=$(jq '.crtcs | length' "$tmp/run.json")
check flips-run-on-every-crtc-meanwhile \
	"$([ "$crtcs" -eq 3 ] && [ "$(jq '[.crtcs[].summary["signal-submit"].n] | all(. > 0)' "$tmp/run.json")" = true ]; echo $?)" \
	"expected flips signalled on 3 CRTCs, got $(jq -c '[.crtcs[] | .summary["signal-submit"].n]' "$tmp/run.json")"
echo "# flips: $(jq -c '[.crtcs[] | {crtc: .crtc_id, n: .summary["signal-submit"].n}]' "$tmp/run.json")"
# Per CRTC, in the CSV's (commit) order: no fence signalled before an
# earlier commit's, and none missing.
order=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ c = $col["crtc"]; s = $col["signal_ns"] }
	s == "" { missing++; next }
	(c in last) && s + 0 < last[c] { bad++ } { last[c] = s + 0 }
	END { print bad + 0, missing + 0 }' "$tmp/run.csv")
check flips-signal-in-commit-order-per-crtc "$([ "$order" = "0 0" ]; echo $?)" \
	"expected every fence signalled in commit order, got (out of order, unsignalled) $order"
finish
