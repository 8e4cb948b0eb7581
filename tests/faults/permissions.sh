#!/bin/bash
# SPDX-License-Identifier: MIT
# Who may touch what (Documentation/reliability.rst, threat model): the
# sw_sync node, syncfw's and flipkms's debugfs files and the DRM device
# node are root's. An unprivileged user (uid/gid 65534, no groups) cannot
# create timelines, read the fence dump, inject faults or open the display;
# a fence root passes it can be waited on and inspected, not signalled
# (fdpass.c); and after all of it the display still flips.
#
# usage: tests/faults/permissions.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
failures=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; failures=$((failures + 1)); }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# Modes: owner root, nothing for group or others.
root_only() {	# NAME PATH...
	local name=$1 p bad=""
	shift
	for p in "$@"; do
		[ -e "$p" ] || { bad+=" $p(missing)"; continue; }
		[ "$(stat -c %u "$p")" = 0 ] && [ $((0$(stat -c %a "$p") & 077)) -eq 0 ] ||
			bad+=" $p($(stat -c %a:%u "$p"))"
	done
	[ -z "$bad" ] && pass "$name" || fail "$name" "not root-only:$bad"
}

dri=$(ls -d /sys/kernel/debug/dri/*/crtc-0 | head -1)
card=/dev/dri/card${dri#/sys/kernel/debug/dri/}
card=${card%/crtc-0}
root_only sw-sync-node-root-only /dev/sw_sync
root_only syncfw-debugfs-root-only /sys/kernel/debug/sync/sw_sync /sys/kernel/debug/sync/info
root_only flipkms-controls-root-only "$dri"/connected "$dri"/refresh_hz "$dri"/signal_delay_us \
	"$dri"/drop_vblanks "$dri"/stall_commit_ms "$dri"/fence_error "$dri"/frame.ppm
root_only drm-node-root-only "$card"

nobody sh -c 'exec 3<>/dev/sw_sync' 2>/dev/null && fail nobody-cannot-create-timelines "opened /dev/sw_sync" ||
	pass nobody-cannot-create-timelines
nobody cat /sys/kernel/debug/sync/info >/dev/null 2>&1 && fail nobody-cannot-read-fence-dump "read it" ||
	pass nobody-cannot-read-fence-dump
nobody sh -c "echo 5 > $dri/drop_vblanks" 2>/dev/null && fail nobody-cannot-inject-faults "wrote drop_vblanks" ||
	pass nobody-cannot-inject-faults
[ "$(cat "$dri/drop_vblanks")" = 0 ] && pass fault-settings-unchanged ||
	fail fault-settings-unchanged "drop_vblanks is $(cat "$dri/drop_vblanks")"
nobody sh -c "exec 3<>$card" 2>/dev/null && fail nobody-cannot-open-display "opened $card" ||
	pass nobody-cannot-open-display
# A process of root's own: nobody may not read its fds through /proc.
sleep 30 3</dev/sw_sync &
holder=$!
nobody ls "/proc/$holder/fd" >/dev/null 2>&1 && fail nobody-cannot-see-roots-fds "listed /proc/$holder/fd" ||
	pass nobody-cannot-see-roots-fds
kill $holder

"$top/build/tests/faults/fdpass" || failures=$((failures + 1))

timeout 30 "$top/build/fliplat/fliplat" --no-progress -q --flips 5 --warmup 0 >/dev/null 2>&1 &&
	pass display-flips-after-attempts || fail display-flips-after-attempts "fliplat failed"
[ $failures -eq 0 ]
