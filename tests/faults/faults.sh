#!/bin/bash
# SPDX-License-Identifier: MIT
# Faults a compositor under test can cause, and what flipfence must do:
#
#   kill -9 of a client with a flip pending behind an in-fence nothing
#     signals, threads waiting on its out-fence and on a sw_sync fence, and
#     its timelines open: every one of its sync objects goes away (and its
#     out-fence's point from flipkms's timeline) and the display keeps
#     flipping for the next client
#   hot-unplug mid-flip: flips in flight finish, nothing hangs, the display
#     flips after replug
#   module unload with fences held: refused cleanly while a process holds a
#     flipkms out-fence or a sw_sync fence ("in use"), done once they are
#     closed; right after a client with a pending flip is killed it succeeds
#     within 5 s; reloading gives a working display
#
# usage: tests/faults/faults.sh      (in the guest, as root)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
victim=$top/build/tests/faults/victim
fliplat=$top/build/fliplat/fliplat
info=/sys/kernel/debug/sync/info
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"

display_ok() { timeout 30 "$fliplat" --no-progress -q --flips 5 --warmup 0 >"$tmp/fliplat" 2>&1; }
# syncfw's dump without flipkms's timelines and fences, each dropped as a
# whole block (its line and the indented lines under it): flipkms's flip
# counts move on. Its points are checked apart (flipkms_points).
others() {
	awk '/^(timelines|fences):$/ { if (held != "") print held; held = ""; sec = $1; drop = 0; print; next }
		sec == "timelines:" { if (!/^  /) drop = / flipkms: /; if (!drop) print; next }
		!/^  / { if (held != "") print held; held = $0; next }
		{ if (!/ flipkms pt /) { print held; print } held = "" }
		END { if (held != "") print held }' "$info"
}
# The points left on flipkms's timelines, one a line.
flipkms_points() {
	awk '/^fences:$/ { exit } !/^  / { fk = / flipkms: /; next } fk' "$info"
}
settles_to() {	# WANT: the dump (without flipkms) becomes WANT within 5 s
	for _ in $(seq 50); do
		[ "$(others)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
start_victim() {	# ARGS: start it and wait for "ready"; sets $pid
	"$victim" "$@" >"$tmp/victim" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^ready' "$tmp/victim" && return 0
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	echo "# victim: $(tr '\n' ' ' <"$tmp/victim")"
	return 1
}
unload_within() {	# MODULE SECONDS
	for _ in $(seq $(($2 * 10))); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
reload() {
	modprobe -d "$FLIPFENCE_MODROOT" syncfw && modprobe -d "$FLIPFENCE_MODROOT" flipkms
}

# --- kill -9 in the middle of everything ---------------------------------------
base=$(others)
if start_victim; then
	others | grep -q 'never' && pass victim-objects-visible-in-dump ||
		fail victim-objects-visible-in-dump "expected the victim's fences in $info"
	kill -9 $pid
	wait $pid 2>/dev/null
	settles_to "$base" && pass killed-client-leaves-no-sync-objects ||
		fail killed-client-leaves-no-sync-objects "left in $info: $(others | tr '\n' ' ')"
	# Its out-fence's point (of the flip it left pending) goes as well.
	for _ in $(seq 50); do
		[ -z "$(flipkms_points)" ] && break
		sleep 0.1
	done
	check killed-client-leaves-no-flipkms-point "$([ -z "$(flipkms_points)" ]; echo $?)" \
		"expected no point on flipkms's timelines 5 s after the kill, got: $(flipkms_points | tr '\n' ' ')"
else
	fail victim-objects-visible-in-dump "the victim did not get ready"
fi
display_ok && pass display-flips-after-kill || fail display-flips-after-kill "$(tail -1 "$tmp/fliplat")"

# --- hot-unplug mid-flip --------------------------------------------------------
ctl=$(ls -d /sys/kernel/debug/dri/*/crtc-0 | head -1)
base=$(flipkms_flips "$ctl")
timeout 30 "$fliplat" --no-progress -q --duration 4 --warmup 0 >"$tmp/unplug" 2>&1 &
flipper=$!
# Unplug once fliplat is flipping, so that its flips are in flight.
flipkms_flips_more "$ctl" "$base" 10 || fail unplug-mid-flip-flips-before "fliplat latched no 10 flips in 10 s"
echo 0 >"$ctl/connected"
at_unplug=$(flipkms_flips "$ctl")
flipkms_flips_more "$ctl" "$at_unplug" 5 && pass unplug-mid-flip-flips-go-on ||
	fail unplug-mid-flip-flips-go-on "no 5 flips latched in 10 s while unplugged"
echo 1 >"$ctl/connected"
wait $flipper
rc=$?
# Documentation/reliability.rst: the flips in flight finish and the run with them.
[ $rc -eq 0 ] && pass unplug-mid-flip-run-completes ||
	fail unplug-mid-flip-run-completes "fliplat exited $rc: $(tail -1 "$tmp/unplug")"
display_ok && pass display-flips-after-replug || fail display-flips-after-replug "$(tail -1 "$tmp/fliplat")"

# --- unload with fences held, then released --------------------------------------
if start_victim hold; then
	rmmod flipkms 2>"$tmp/rmmod" && fail flipkms-unload-refused-while-fence-held "rmmod flipkms succeeded" ||
		{ grep -qi 'in use' "$tmp/rmmod" && pass flipkms-unload-refused-while-fence-held ||
		  fail flipkms-unload-refused-while-fence-held "expected 'in use', got $(cat "$tmp/rmmod")"; }
	rmmod syncfw 2>"$tmp/rmmod" && fail syncfw-unload-refused-while-fence-held "rmmod syncfw succeeded" ||
		{ grep -qi 'in use' "$tmp/rmmod" && pass syncfw-unload-refused-while-fence-held ||
		  fail syncfw-unload-refused-while-fence-held "expected 'in use', got $(cat "$tmp/rmmod")"; }
	kill -9 $pid
	wait $pid 2>/dev/null
	unload_within flipkms 5 && pass flipkms-unloads-once-released ||
		fail flipkms-unloads-once-released "still in use 5 s after the holder died"
	unload_within syncfw 5 && pass syncfw-unloads-once-released ||
		fail syncfw-unloads-once-released "still in use 5 s after the holder died"
	reload && display_ok && pass reload-gives-working-display ||
		fail reload-gives-working-display "reload or flips failed: $(tail -1 "$tmp/fliplat")"
else
	fail flipkms-unload-refused-while-fence-held "the victim did not get ready"
fi

# --- unload right after a client with a flip pending is killed --------------------
if start_victim; then
	kill -9 $pid
	wait $pid 2>/dev/null
	unload_within flipkms 5 && pass unload-after-killed-pending-flip ||
		fail unload-after-killed-pending-flip "flipkms still in use 5 s after the client died"
	unload_within syncfw 5 && pass syncfw-unload-after-killed-client ||
		fail syncfw-unload-after-killed-client "syncfw still in use"
	reload && display_ok && pass reload-after-pending-flip ||
		fail reload-after-pending-flip "reload or flips failed: $(tail -1 "$tmp/fliplat")"
else
	fail unload-after-killed-pending-flip "the victim did not get ready"
fi
grep -q '^flipkms ' /proc/modules || reload

finish
