#!/bin/bash
# SPDX-License-Identifier: MIT
# A second output plugged into a running Weston: flipkms with two outputs,
# the second unplugged (debugfs) before Weston starts, Debian's udevd in
# the guest for Weston's hot-plug monitor (as in hotplug.sh). wayland-info
# lists the compositor's wl_outputs, with the make and model Weston reads
# from each flipkms EDID (manufacturer FFK, monitor name "flipkms <index>"):
#
#   one-output-at-start     one wl_output: flipkms 0
#   second-output-added     after plugging crtc-1 in: two, flipkms 0 and 1
#   second-output-removed   after unplugging it again: flipkms 0 alone
#   presents-on-two-outputs presentlat ran on the two-output desktop
#   weston-stops-cleanly    SIGTERM ends it, exit status 0
#
# usage: tests/kms/with-module.sh flipkms:outputs=2 -- tests/compositor/second-output.sh
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
udevd=/lib/systemd/systemd-udevd
command -v weston >/dev/null && command -v wayland-info >/dev/null && [ -x $udevd ] ||
	{ skip one-output-at-start "weston, wayland-info or udev is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
export second=/sys/kernel/debug/dri/$minor/crtc-1
[ -e "$second/connected" ] || { echo "not ok - setup: flipkms has no second output (outputs=2)"; exit 1; }
tmp=$(mktemp -d)
export FLIPFENCE_SESSION_LOG=$tmp/weston.log
# udevd in the foreground, a child of this script: in the test's process
# group, so that the runner's timeout kills it with the test, and stopped
# by the trap on any exit (a daemonised one would outlive a killed test).
$udevd --resolve-names=never >"$tmp/udevd.log" 2>&1 &
udevd_pid=$!
cleanup() {
	kill "$udevd_pid" 2>/dev/null
	wait "$udevd_pid" 2>/dev/null
	echo 1 >"$second/connected"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
for _ in $(seq 50); do
	udevadm control --ping 2>/dev/null && break
	sleep 0.1
done
udevadm trigger --action=add --subsystem-match=drm && udevadm settle -t 10
echo 0 >"$second/connected"

cat >"$tmp/client.sh" <<'CLIENT'
log=$FLIPFENCE_SESSION_LOG
# The models of the wl_outputs the compositor lists, sorted, on one line.
models() { wayland-info 2>/dev/null | sed -n "s/.*model: '\([^']*\)'.*/\1/p" | sort | paste -sd, -; }
# Waits up to 10 s for the models to be $1.
models_become() { for _ in $(seq 100); do [ "$(models)" = "$1" ] && return 0; sleep 0.1; done; return 1; }
echo "start: $(models)"
echo 1 >"$second/connected"
models_become "flipkms 0,flipkms 1"
echo "plugged: $(models)"
build/presentlat/presentlat -n 30 -w 0 -q && echo presented
echo 0 >"$second/connected"
models_become "flipkms 0"
echo "unplugged: $(models)"
CLIENT
"$here/session.sh" weston -- bash "$tmp/client.sh" >"$tmp/out" 2>&1
rc=$?
grep '^# session' "$tmp/out"
check_eq one-output-at-start "start: flipkms 0" "$(grep '^start:' "$tmp/out")"
check_eq second-output-added "plugged: flipkms 0,flipkms 1" "$(grep '^plugged:' "$tmp/out")"
check_eq second-output-removed "unplugged: flipkms 0" "$(grep '^unplugged:' "$tmp/out")"
check presents-on-two-outputs "$(grep -q '^presented' "$tmp/out"; echo $?)" \
	"presentlat failed on the two-output desktop: $(grep '^presentlat:' "$tmp/out" | tail -2 | tr '\n' ' ')"
check weston-stops-cleanly "$(grep -q '^# session: weston exited 0 after SIGTERM' "$tmp/out"; echo $?)" \
	"expected weston to exit with status 0 on SIGTERM, got session status $rc: $(grep -E 'after SIGTERM' "$tmp/out" | tr '\n' ' ')"
finish
