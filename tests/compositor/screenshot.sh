#!/bin/bash
# SPDX-License-Identifier: MIT
# What a compositor shows is what its client drew: presentlat, fullscreen
# on COMPOSITOR on flipkms, commits its pattern in bursts (20 frames, then
# 1 s idle) with -t 60 while flipkms's frame.ppm (the frame the last
# vblank latched, composed from its planes) is read and held against the
# pattern by tests/compositor/pattern-check.c (its own copy of the formula). A
# capture counts only if flipkms latched nothing while it was composed:
# composing 1920x1080 takes longer than a frame under TCG, and once the
# next frame is latched the compositor may draw into the buffer being read,
# as it may on any display. Once the captures are in, presentlat gets a
# SIGINT, which must end its run as at its last frame:
#
#   COMPOSITOR-presents      the session (presentlat included) exited 0
#   client-frame-on-screen   while presentlat runs, a still capture is one
#                            whole presentlat frame
#   screen-follows-client    the 4 still captures after it too, each no
#                            earlier a frame than the one before
#   sigint-says-stopped      stderr says "stopped by SIGINT after N frames",
#                            N the frames its JSON says it committed
#   report-counts-frames     the JSON is written, complete, with frames
#                            presented, no more than were committed, and
#                            none left without feedback (the wait for the
#                            last frames' feedback ran)
#   sigint-ends-run-early    it exited within 10 s of the signal, and its
#                            JSON's elapsed_s is under half of its -t 60
#
# usage: tests/compositor/screenshot.sh weston|sway
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
compositor=${1:?usage: $0 weston|sway}
command -v "$compositor" >/dev/null ||
	{ skip "$compositor-screenshot" "$compositor is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
ctl=/sys/kernel/debug/dri/$minor/crtc-0
check_ppm=$(cd "$here/../.." && pwd)/build/tests/compositor/pattern-check
tmp=$(mktemp -d)
chmod 0777 "$tmp"	# sway's clients run as nobody and write their JSON here
trap 'rm -rf "$tmp"' EXIT

# still: capture the screen and print pattern-check's verdict, if flipkms
# latched no commit meanwhile; status 0 if it did not.
still() {
	local before
	before=$(flipkms_flips "$ctl")
	cat "$ctl/frame.ppm" >"$tmp/still.ppm"
	[ "$(flipkms_flips "$ctl")" = "$before" ] || return 1
	"$check_ppm" "$tmp/still.ppm" 2>&1
}

# As root beside the session (the client may run as nobody): from the
# compositor being ready (the session says so before it starts the client)
# while presentlat runs, until 4 still captures followed the first one
# showing the client; then SIGINT to presentlat, which has done its part,
# and how many seconds it took to exit.
capture() {
	local n=0 verdict start
	for _ in $(seq 300); do
		grep -q '^# session: .* ready on' "$tmp/out" 2>/dev/null && break
		sleep 0.1
	done
	for _ in $(seq 50); do
		pgrep -x presentlat >/dev/null && break
		sleep 0.1
	done
	while pgrep -x presentlat >/dev/null && [ $n -le 4 ]; do
		verdict=$(still) || continue
		case $n$verdict in
		0*" 0 pixels differ"*) echo "first: $verdict"; n=1 ;;
		0*) ;;
		*) echo "still: $verdict"; n=$((n + 1)) ;;
		esac
		sleep 0.2
	done
	# Not into the captures: each line there is one.
	[ $n -gt 4 ] || return
	start=$(date +%s)
	pkill -INT -x presentlat || return
	while pgrep -x presentlat >/dev/null && [ $(($(date +%s) - start)) -lt 30 ]; do
		sleep 0.1
	done
	pgrep -x presentlat >/dev/null && { echo "still running 30 s after SIGINT" >"$tmp/stopped"; return; }
	echo "exited after $(($(date +%s) - start)) s" >"$tmp/stopped"
}
capture >"$tmp/captures" 2>&1 &
capturer=$!
"$here/session.sh" "$compositor" -- "$presentlat" -f -t 60 -w 2 --pattern 20:1000 -q \
	--json "$tmp/run.json" >"$tmp/out" 2>&1
rc=$?
wait $capturer
grep '^# session' "$tmp/out"
sed 's/^/# /' "$tmp/captures"
sed 's/^/# captures done, SIGINT to presentlat: /' "$tmp/stopped" 2>/dev/null
check "$compositor-presents" "$rc" "session status $rc: $(grep -v '^# session' "$tmp/out" | tail -3 | tr '\n' ' ')"
check client-frame-on-screen "$(grep -q '^first' "$tmp/captures"; echo $?)" \
	"expected a still screen to be one whole presentlat frame while it ran"
# Frames are numbered mod 256 on screen: each capture's must be the same
# as the last one's (the client idles) or ahead of it by 1 to 127.
bad=$(awk '{ if ($0 !~ / 0 pixels differ/) { b++; next }
		for (i = 1; i <= NF; i++) if ($i == "frame") f = $(i + 1) + 0
		if (n++ && (f - last + 256) % 256 > 127) b++
		last = f }
	END { print b + 0 }' "$tmp/captures")
check screen-follows-client "$([ "$bad" -eq 0 ] && [ "$(grep -c '^still' "$tmp/captures")" -eq 4 ]; echo $?)" \
	"expected 4 more still captures, each a whole presentlat frame no earlier than the last: $(grep '^still' "$tmp/captures" | tr '\n' ' ')"
frames=$(jq -r '.frames' "$tmp/run.json" 2>/dev/null)
check_eq sigint-says-stopped "presentlat: stopped by SIGINT after ${frames:-?} frames" \
	"$(grep '^presentlat: stopped' "$tmp/out")"
counts=$(jq -r '"\(.status) \(.frames) \(.counts.presented) \(.counts.without_feedback)"' "$tmp/run.json" 2>&1)
read -r status committed presented owed <<<"$counts"
echo "# (status committed presented without_feedback) $counts"
check report-counts-frames "$([ "$status" = complete ] && [ "${presented:-0}" -gt 0 ] 2>/dev/null &&
	[ "$presented" -le "$committed" ] && [ "$owed" = 0 ]; echo $?)" \
	"expected a complete JSON with 0 < presented <= committed and no frame without feedback; got (status committed presented without_feedback) $counts"
took=$(sed -n 's/^exited after \([0-9]*\) s$/\1/p' "$tmp/stopped" 2>/dev/null)
elapsed=$(jq -r '.elapsed_s' "$tmp/run.json" 2>/dev/null)
check sigint-ends-run-early "$([ -n "$took" ] && [ "$took" -le 10 ] &&
	awk -v e="${elapsed:-60}" 'BEGIN { exit !(e < 30) }'; echo $?)" \
	"expected an exit within 10 s of SIGINT and elapsed_s < 30 of -t 60; got: $(cat "$tmp/stopped" 2>/dev/null) elapsed_s $elapsed"
finish
