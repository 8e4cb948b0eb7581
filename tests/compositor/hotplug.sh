#!/bin/bash
# SPDX-License-Identifier: MIT
# Weston follows flipkms's hot-plug: with Debian's udevd running in the
# guest (Weston's monitor listens on udev's netlink group, which only udevd
# sends on; the kernel's own uevents do not reach it), unplugging the
# connector through flipkms's debugfs makes Weston drop the output, and
# plugging it back brings the output back and presentation resumes.
#
#   weston-sees-unplug, weston-sees-replug   Weston's log says so, within 10 s
#   presents-after-replug   weston-presentation-shm gets presented frames
#                           again after the replug
#   weston-stops-cleanly    SIGTERM ends it, exit status 0
#
# usage: tests/compositor/hotplug.sh     (in the guest, as root)
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
udevd=/lib/systemd/systemd-udevd
command -v weston >/dev/null && [ -x $udevd ] ||
	{ skip weston-sees-unplug "weston or udev is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
export ctl=/sys/kernel/debug/dri/$minor/crtc-0
tmp=$(mktemp -d)
export FLIPFENCE_SESSION_LOG=$tmp/weston.log
# udevd (tests/lib.sh's start_udevd) stops with the trap on any exit.
cleanup() {
	stop_udevd
	echo 1 >"$ctl/connected"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
start_udevd "$tmp/udevd.log"

# The client half, in the session: present, unplug, replug, present again.
cat >"$tmp/client.sh" <<'CLIENT'
log=$FLIPFENCE_SESSION_LOG out=$1
# waits up to 10 s for the Nth line of the log matching $2
nth() { for _ in $(seq 100); do [ "$(grep -c "$2" "$log")" -ge "$1" ] && return 0; sleep 0.1; done; return 1; }
frames() { grep -c 'seq' "$out"; }
stdbuf -oL weston-presentation-shm -f >"$out" 2>&1 &
client=$!
for _ in $(seq 100); do [ "$(frames)" -ge 20 ] && break; sleep 0.1; done
connected=$(grep -c "is connected" "$log")
echo 0 >"$ctl/connected"
nth 1 "is disconnected" && echo unplug-seen
echo 1 >"$ctl/connected"
nth $((connected + 1)) "is connected" && echo replug-seen
at=$(frames)
for _ in $(seq 100); do [ "$(frames)" -ge $((at + 20)) ] && break; sleep 0.1; done
echo "frames $at $(frames)"
kill -INT $client
wait $client 2>/dev/null
true
CLIENT
"$here/session.sh" weston -- bash "$tmp/client.sh" "$tmp/present" >"$tmp/out" 2>&1
rc=$?
grep '^# session' "$tmp/out"
check weston-sees-unplug "$(grep -q unplug-seen "$tmp/out"; echo $?)" \
	"expected Weston's log to say the connector is disconnected: $(grep -i 'connector' "$tmp/weston.log" | tail -3 | tr '\n' ' ')"
check weston-sees-replug "$(grep -q replug-seen "$tmp/out"; echo $?)" \
	"expected Weston's log to say the connector is connected again: $(grep -i 'connector' "$tmp/weston.log" | tail -3 | tr '\n' ' ')"
read -r _ at now <<<"$(grep "^frames " "$tmp/out" || echo "frames 0 0")"
check presents-after-replug "$([ "${now:-0}" -ge $((${at:-0} + 20)) ] && [ "${at:-0}" -ge 20 ]; echo $?)" \
	"expected 20 more presented frames after the replug, got ${at:-?} before and ${now:-?} in all"
check weston-stops-cleanly "$(grep -q '^# session: weston exited 0 after SIGTERM' "$tmp/out"; echo $?)" \
	"expected weston to exit with status 0 on SIGTERM, got session status $rc: $(grep -E 'after SIGTERM' "$tmp/out" | tr '\n' ' ')"
finish
