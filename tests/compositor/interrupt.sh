#!/bin/bash
# SPDX-License-Identifier: MIT
# presentlat -t 60 on COMPOSITOR on flipkms, stopped by SIGINT once flipkms
# has latched 30 flips of the session: it ends as at its last frame.
#
#   sigint-exits-0             presentlat (the session's client) exits 0
#   sigint-says-stopped        stderr says "stopped by SIGINT after N frames",
#                              N the frames its JSON says it committed
#   report-counts-frames       the JSON is written, complete, with frames
#                              presented, no more than were committed, and
#                              none left without feedback (the wait for the
#                              last frames' feedback ran)
#   sigint-ends-run-early      it exited within 10 s of the signal, and its
#                              JSON's elapsed_s is under half of its -t 60
#
# usage: tests/compositor/interrupt.sh weston|sway
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
compositor=${1:?usage: $0 weston|sway}
command -v "$compositor" >/dev/null ||
	{ skip "$compositor-sigint-exits-0" "$compositor is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
ctl=/sys/kernel/debug/dri/$minor/crtc-0
tmp=$(mktemp -d)
chmod 0777 "$tmp"	# sway's clients run as nobody and write their JSON here
trap 'rm -rf "$tmp"' EXIT

# As root beside the session (the client may run as nobody): once
# presentlat runs and 30 flips more are latched, SIGINT it, then print how
# many seconds it took to exit.
interrupter() {
	local base start
	for _ in $(seq 300); do
		pgrep -x presentlat >/dev/null && break
		sleep 0.1
	done
	base=$(flipkms_flips "$ctl")
	flipkms_flips_more "$ctl" "$base" 30 || { echo "no flips"; return; }
	start=$(date +%s)
	pkill -INT -x presentlat || { echo "no presentlat to signal"; return; }
	while pgrep -x presentlat >/dev/null && [ $(($(date +%s) - start)) -lt 30 ]; do
		sleep 0.1
	done
	pgrep -x presentlat >/dev/null && { echo "still running 30 s after SIGINT"; return; }
	echo "exited after $(($(date +%s) - start)) s"
}
interrupter >"$tmp/interrupter" 2>&1 &
interrupter_pid=$!
"$here/session.sh" "$compositor" -- "$presentlat" -t 60 -w 2 -q --json "$tmp/run.json" >"$tmp/out" 2>&1
rc=$?
wait $interrupter_pid
grep '^# session' "$tmp/out"
sed 's/^/# interrupter: /' "$tmp/interrupter"

check sigint-exits-0 "$rc" "session status $rc: $(grep -v '^# session' "$tmp/out" | tail -3 | tr '\n' ' ')"
frames=$(jq -r '.frames' "$tmp/run.json" 2>/dev/null)
check_eq sigint-says-stopped "presentlat: stopped by SIGINT after ${frames:-?} frames" \
	"$(grep '^presentlat: stopped' "$tmp/out")"
counts=$(jq -r '"\(.status) \(.frames) \(.counts.presented) \(.counts.without_feedback)"' "$tmp/run.json" 2>&1)
read -r status committed presented owed <<<"$counts"
echo "# (status committed presented without_feedback) $counts"
check report-counts-frames "$([ "$status" = complete ] && [ "${presented:-0}" -gt 0 ] 2>/dev/null &&
	[ "$presented" -le "$committed" ] && [ "$owed" = 0 ]; echo $?)" \
	"expected a complete JSON with 0 < presented <= committed and no frame without feedback; got (status committed presented without_feedback) $counts"
took=$(sed -n 's/^exited after \([0-9]*\) s$/\1/p' "$tmp/interrupter")
elapsed=$(jq -r '.elapsed_s' "$tmp/run.json" 2>/dev/null)
check sigint-ends-run-early "$([ -n "$took" ] && [ "$took" -le 10 ] &&
	awk -v e="${elapsed:-60}" 'BEGIN { exit !(e < 30) }'; echo $?)" \
	"expected an exit within 10 s of SIGINT and elapsed_s < 30 of -t 60; got: $(tr '\n' ' ' <"$tmp/interrupter")elapsed_s $elapsed"
finish
