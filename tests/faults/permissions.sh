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
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# denied NAME CMD...: passes when nobody's CMD fails for want of permission,
# not for any other reason (a missing file, a broken setpriv).
denied() {
	local name=$1 out
	shift
	if out=$(nobody "$@" 2>&1 >/dev/null); then
		fail "$name" "it succeeded"
	elif echo "$out" | grep -q 'Permission denied'; then
		pass "$name"
	else
		fail "$name" "failed, but not with EACCES: $(echo "$out" | head -1)"
	fi
}

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

# Everything below means something only if nobody can run commands at all.
if [ "$(nobody id -u 2>&1)" = 65534 ] && nobody cat /proc/self/status >/dev/null; then
	pass nobody-runs-commands
else
	fail nobody-runs-commands "setpriv cannot run a command as 65534: $(nobody id -u 2>&1 | head -1)"
	exit 1
fi
denied nobody-cannot-create-timelines sh -c 'exec 3<>/dev/sw_sync'
denied nobody-cannot-read-fence-dump cat /sys/kernel/debug/sync/info
denied nobody-cannot-inject-faults sh -c "echo 5 > $dri/drop_vblanks"
[ "$(cat "$dri/drop_vblanks")" = 0 ] && pass fault-settings-unchanged ||
	fail fault-settings-unchanged "drop_vblanks is $(cat "$dri/drop_vblanks")"
denied nobody-cannot-open-display sh -c "exec 3<>$card"

# A process of root's own: nobody may not read its fds through /proc.
sleep 30 3</dev/sw_sync &
holder=$!
denied nobody-cannot-see-roots-fds ls "/proc/$holder/fd"
kill $holder

"$top/build/tests/faults/fdpass" || failures=$((failures + 1))

timeout 30 "$top/build/fliplat/fliplat" --no-progress -q --flips 5 --warmup 0 >/dev/null 2>&1 &&
	pass display-flips-after-attempts || fail display-flips-after-attempts "fliplat failed"
finish
