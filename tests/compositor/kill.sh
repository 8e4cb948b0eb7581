#!/bin/bash
# SPDX-License-Identifier: MIT
# kill -9 of a compositor while it flips on flipkms, then a new start:
#
#   killed-mid-flip       the compositor died of SIGKILL while presentlat's
#                         frames were being flipped (flipkms latching them)
#   crtc-settles          flipkms's timeline stops within a few vblanks of
#                         the kill
#   last-flush-latched    the compositor's last commit (the last one flushed
#                         to CRTC 0 with the CRTC on, flipkms_commit_flush
#                         active=1) was latched at the first vblank at or
#                         after its flush, as every commit is: the commit in
#                         flight at the kill did not stay pending until the
#                         fd's release turned the CRTC off. flipkms is loaded
#                         with fbdev=0, so that no fbdev restore commit
#                         (which lights CRTC 0 again on the last close, and
#                         is latched in any case) comes after it.
#                         (syncfw's dump has nothing of the compositor's to
#                         lose: neither compositor asks for out-fences, so
#                         its commits make no syncfw point or fence.)
#   next-start-presents   a new COMPOSITOR on the same card presents 60
#                         frames of presentlat, none discarded
#
# usage: tests/kms/with-module.sh flipkms:fbdev=0 -- tests/compositor/kill.sh weston|sway
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
[ "$(cat /sys/module/flipkms/parameters/fbdev)" = N ] ||
	{ echo "not ok - setup: expected flipkms loaded with fbdev=0 (tests/kms/with-module.sh flipkms:fbdev=0 -- $0)"; exit 1; }
ctl=/sys/kernel/debug/dri/$minor/crtc-0
tmp=$(mktemp -d)
chmod 0777 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# Beside the session, as root (the client may run as nobody, which cannot
# read debugfs): once presentlat runs and flipkms latches its frames,
# SIGKILL the compositor at a random point of a frame.
killer() {
	local base
	for _ in $(seq 300); do
		pgrep -x presentlat >/dev/null && break
		sleep 0.1
	done
	base=$(flipkms_flips "$ctl")
	flipkms_flips_more "$ctl" "$base" 60 || { echo "no flips"; return; }
	sleep "0.$((RANDOM % 17))"
	pkill -KILL -x "$compositor" && echo killed
}
trace_start
echo 1 >$trace/events/flipkms/flipkms_commit_flush/enable
trap 'trace_restore; rm -rf "$tmp"' EXIT
killer >"$tmp/killer" 2>&1 &
killer_pid=$!
"$here/session.sh" "$compositor" -- "$presentlat" -t 30 -q >"$tmp/out" 2>&1
rc=$?
wait $killer_pid
grep '^# session' "$tmp/out"
check killed-mid-flip "$(grep -q '^killed' "$tmp/killer" && grep -q "^# session: $compositor exited 137 before it was stopped" "$tmp/out"; echo $?)" \
	"expected the compositor killed by SIGKILL while flipping, got session status $rc, killer: $(cat "$tmp/killer"): $(grep -v '^#' "$tmp/out" | tail -3 | tr '\n' ' ')"

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
# The compositor's last commit S (flushed at F), the ideal time of the
# first vblank at or after F, and the vblank that latched S (or a later
# commit with it), from the trace: "S WANT GOT".
latch=$(awk 'function f(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	/flipkms_commit_flush:/ && / crtc=0 / { if (f("active") == 1) { s = f("seqno"); fl = f("flushed"); want = ""; got = "" } next }
	/flipkms_vblank:/ && / crtc=0 / { if (s != "" && want == "" && f("ideal") + 0 >= fl + 0) want = f("ideal"); next }
	/flipkms_latch:/ && / crtc=0 / { if (s != "" && got == "" && f("seqno") + 0 >= s + 0) got = f("vblank") }
	END { print (s == "" ? "none" : s), (want == "" ? "none" : want), (got == "" ? "none" : got) }' "$tmp/trace")
read -r last want got <<<"$latch"
check last-flush-latched "$([ "$last" != none ] && [ "$want" != none ] && [ "$got" = "$want" ]; echo $?)" \
	"expected the compositor's last commit ($last) latched at the first vblank after its flush ($want), got latched at $got"

"$here/session.sh" "$compositor" -- "$presentlat" -n 60 -w 5 --json "$tmp/next.json" -q >"$tmp/next" 2>&1
rc=$?
grep '^# session' "$tmp/next"
check next-start-presents "$([ $rc -eq 0 ] && [ "$(jq -r '"\(.counts.presented) \(.counts.discarded)"' "$tmp/next.json" 2>&1)" = "60 0" ]; echo $?)" \
	"expected 60 frames presented by the next $compositor, session status $rc: $(grep -v '^# session' "$tmp/next" | tail -3 | tr '\n' ' ')"
finish
