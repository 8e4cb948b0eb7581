#!/bin/bash
# SPDX-License-Identifier: MIT
# kill -9 of a compositor while it flips on flipkms, then a new start:
#
#   killed-mid-flip       the compositor died of SIGKILL while presentlat's
#                         frames were being flipped (flipkms latching them)
#   crtc-settles          flipkms's timeline stops within a few vblanks of
#                         the kill
#   last-flush-latched    the flip on screen is the last commit flushed to
#                         CRTC 0 (flipkms_commit_flush): the commit in flight
#                         at the kill was latched, none is left pending.
#                         (syncfw's dump has nothing of the compositor's to
#                         lose: neither compositor asks for out-fences, so
#                         its commits make no syncfw point or fence.)
#   next-start-presents   a new COMPOSITOR on the same card presents 60
#                         frames of presentlat, none discarded
#
# usage: tests/compositor/kill.sh weston|sway
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
compositor=${1:?usage: $0 weston|sway}
command -v "$compositor" >/dev/null ||
	{ skip "$compositor-killed-mid-flip" "$compositor is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
export ctl=/sys/kernel/debug/dri/$minor/crtc-0 compositor presentlat
tmp=$(mktemp -d)
chmod 0777 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# The client half, in the session (as the compositor's user, which may
# kill it): present, and once flipkms latches the frames, SIGKILL the
# compositor at a random point of a frame.
cat >"$tmp/client.sh" <<'CLIENT'
. tests/lib.sh
"$presentlat" -t 30 -q 2>/dev/null &
base=$(flipkms_flips "$ctl")
flipkms_flips_more "$ctl" "$base" 60 || { echo "no flips"; exit 1; }
sleep "0.$((RANDOM % 17))"
pkill -KILL -x "$compositor" && echo killed
wait
true
CLIENT
trace_start
echo 1 >$trace/events/flipkms/flipkms_commit_flush/enable
trap 'trace_restore; rm -rf "$tmp"' EXIT
"$here/session.sh" "$compositor" -- bash "$tmp/client.sh" >"$tmp/out" 2>&1
rc=$?
grep '^# session' "$tmp/out"
check killed-mid-flip "$(grep -q '^killed' "$tmp/out" && grep -q 'exited 137 after SIGTERM' "$tmp/out"; echo $?)" \
	"expected the compositor killed by SIGKILL while flipping, got session status $rc: $(grep -v '^#' "$tmp/out" | tail -3 | tr '\n' ' ')"

# Settled: the flip on screen stays the same over 10 vblanks.
on_screen() { awk '/^crtc-0:/ { print $(NF - 2) }' "/sys/kernel/debug/dri/$minor/flipkms_status"; }
settled=1
for _ in $(seq 20); do
	a=$(on_screen)
	sleep 0.2
	b=$(on_screen)
	[ "$a" = "$b" ] && { settled=0; break; }
done
check crtc-settles "$settled" "flipkms's timeline kept moving 4 s after the kill"
trace_stop "$tmp/trace"
flushed=$(awk '/flipkms_commit_flush:/ && / crtc=0 / { for (i = 1; i <= NF; i++) if ($i ~ /^seqno=/) s = substr($i, 7) } END { print s }' "$tmp/trace")
check last-flush-latched "$([ -n "$flushed" ] && [ "$flushed" = "$(on_screen)" ]; echo $?)" \
	"expected the last commit flushed (${flushed:-none}) on screen, flipkms shows $(on_screen)"

"$here/session.sh" "$compositor" -- "$presentlat" -n 60 -w 5 --json "$tmp/next.json" -q >"$tmp/next" 2>&1
rc=$?
grep '^# session' "$tmp/next"
check next-start-presents "$([ $rc -eq 0 ] && [ "$(jq -r '"\(.counts.presented) \(.counts.discarded)"' "$tmp/next.json" 2>&1)" = "60 0" ]; echo $?)" \
	"expected 60 frames presented by the next $compositor, session status $rc: $(grep -v '^# session' "$tmp/next" | tail -3 | tr '\n' ' ')"
finish
