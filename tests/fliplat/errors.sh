#!/bin/bash
# SPDX-License-Identifier: MIT
# fliplat's errors: a clear message and the documented exit status.
#   1 the run failed (a device unplugged under it too), 2 usage, 3 no KMS
#   device/output/mode, 4 permission denied, 5 busy, 6 unsupported
#
# usage: tests/fliplat/errors.sh
set -u
# shellcheck source=tests/fliplat/lib.sh
. "$(dirname "$0")/lib.sh"
card=$(card_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }

expect_cmd() {	# NAME STATUS PATTERN CMD...: CMD exits STATUS saying PATTERN
	local name=$1 want=$2 pattern=$3 out got
	shift 3
	out=$("$@" 2>&1)
	got=$?
	if [ $got -eq "$want" ] && printf '%s' "$out" | grep -qi -- "$pattern"; then
		pass "$name"
	else
		fail "$name" "expected exit $want and '$pattern', got exit $got: $(printf '%s' "$out" | head -2 | tr '\n' ' ')"
	fi
}

expect() {	# NAME STATUS PATTERN ARGS...: fliplat ARGS exits STATUS saying PATTERN
	local name=$1 want=$2 pattern=$3
	shift 3
	expect_cmd "$name" "$want" "$pattern" "$fliplat" --no-progress "$@"
}

expect help-exits-0 0 "signal-submit" --help
expect bad-option 2 "see fliplat --help" --frobnicate
expect bad-mode-syntax 2 "WIDTHxHEIGHT" --mode nonsense
expect bad-flip-count 2 "number from" --flips -3
expect legacy-blocking 2 "always" --legacy --blocking
expect infence-blocking 2 "cannot be combined" --infence --blocking
expect flips-and-duration 2 "give one" --flips 5 --duration 1
# The flips ran, but a report could not be written: the run failed.
expect report-unwritable 1 "nonexistent" --device "$card" --flips 2 --warmup 0 \
	--json /nonexistent/run.json
# No sw_sync for the renderer: a private /dev holding only the card, and no
# debugfs (whose sync/sw_sync would do as well).
expect_cmd infence-without-sw-sync 6 "needs sw_sync" unshare --mount --propagation private \
	sh -c 'card=$1; shift
		node=$(stat -c "%t %T" "$card")
		umount -l /sys/kernel/debug && mount -t tmpfs none /dev && mkdir /dev/dri &&
		mknod "$card" c $((0x${node% *})) $((0x${node#* })) || exit 125
		exec "$@"' sh "$card" "$fliplat" --no-progress --device "$card" --infence --flips 2
expect missing-device 3 "No such file" --device /dev/dri/card99
expect not-a-kms-device 3 "not a KMS device" --device /dev/null
expect legacy-missing-device 3 "No such file" --legacy --device /dev/dri/card99
expect mode-not-offered 3 "offers mode 123x45" --device "$card" --mode 123x45
expect connector-not-found 3 "no connected connector named HDMI-A-7" --device "$card" --connector HDMI-A-7
# Unprivileged: the card is root's (0600 in the guest's devtmpfs).
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$fliplat" --no-progress --flips 1 2>&1)
got=$?
if [ $got -eq 4 ] && printf '%s' "$out" | grep -qi "permission denied"; then
	pass permission-denied-unprivileged
else
	fail permission-denied-unprivileged "expected exit 4 and 'permission denied', got exit $got: $out"
fi

# A run puts back what the output showed before it: here fbdev's picture,
# which the DRM core restores when a client closes the card. Its mode is a
# blob the kernel made, gone once fliplat's own modeset replaced it, so
# fliplat must bring back the mode and not that blob's id. fliplat says
# when it could not; the FB check is weaker, since the core restores fbdev
# once fliplat closes the card anyway.
state=/sys/kernel/debug/dri/${card#/dev/dri/card}/state
primary_fb() {	# the FB id on the first plane (the primary), 0 if none
	awk '/^plane\[/ { n++ } n == 1 && /^[[:space:]]*fb=/ { sub(/.*fb=/, ""); print; exit }' "$state"
}
"$fliplat" --no-progress -q --device "$card" --flips 2 --warmup 0 >/dev/null 2>&1
before=$(primary_fb)
out=$("$fliplat" --no-progress -q --device "$card" --flips 2 --warmup 0 2>&1)
after=$(primary_fb)
if [ "${before:-0}" != 0 ] && [ "$after" = "$before" ] && ! printf '%s' "$out" | grep -q "could not restore"; then
	pass restores-previous-picture
else
	fail restores-previous-picture "expected FB $before on the primary plane again and no 'could not restore', got FB $after: $(printf '%s' "$out" | head -1)"
fi

# A second fliplat while one holds DRM master on the card. The first one
# runs far longer than the test needs (it is killed once checked), so the
# second always starts while it flips, however slowly the guest runs.
ctl=/sys/kernel/debug/dri/${card#/dev/dri/card}/crtc-0
"$fliplat" --no-progress -q --device "$card" --duration 60 --warmup 0 >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$scratch"' EXIT
# Until the first one is master (the DRM core's client list says so).
clients=/sys/kernel/debug/dri/${card#/dev/dri/card}/clients
for _ in $(seq 100); do
	awk -v pid=$pid '$2 == pid && $4 == "y" { found = 1 } END { exit !found }' "$clients" && break
	sleep 0.1
done
expect busy-device 5 "busy" --device "$card" --flips 1
# The master was not disturbed: still running, and flipping.
base=$(flipkms_flips "$ctl")
check first-run-unaffected "$(kill -0 $pid 2>/dev/null && flipkms_flips_more "$ctl" "$base" 10 && kill -0 $pid 2>/dev/null; echo $?)" \
	"expected the master's run to go on flipping (10 more flips in 10 s), got $(kill -0 $pid 2>/dev/null && echo "$(($(flipkms_flips "$ctl") - base)) flips" || echo "it ended")"
kill $pid 2>/dev/null
wait $pid 2>/dev/null

# The device unplugged under a run (a configfs device disabled, which is
# drm_dev_unplug()): fliplat says so, stops with the flips it measured
# (exit 1, JSON "failure") and does not try to restore a device that is
# gone. It runs far longer than the test needs; 10 s to stop is a hang's
# bound, not a timing goal.
gone=$(flipkms_device fliplat-unplug 1) || echo "# could not build configfs device fliplat-unplug"
gone_ctl=/sys/kernel/debug/dri/${gone#card}/crtc-0
trap 'kill $pid 2>/dev/null; flipkms_device_remove fliplat-unplug; rm -rf "$scratch"' EXIT
"$fliplat" --no-progress -q --device "/dev/dri/$gone" --duration 60 --warmup 0 \
	--json "$scratch/unplug.json" >"$scratch/unplug.out" 2>&1 &
pid=$!
flipkms_flips_more "$gone_ctl" 0 10
echo 0 >/sys/kernel/config/flipkms/fliplat-unplug/enabled
for _ in $(seq 100); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
hung=""
if kill -0 $pid 2>/dev/null; then
	hung=" (still running 10 s after the unplug: killed)"
	kill -9 $pid
fi
wait $pid
got="exit $?$hung: $(head -3 "$scratch/unplug.out" | tr '\n' ' ')"
failure=$(jq -r '"\(.status): \(.failure)"' "$scratch/unplug.json" 2>&1)
check unplugged-device-stops-run "$(printf '%s' "$got" | grep -q "^exit 1: fliplat: /dev/dri/$gone was unplugged" &&
	! grep -q "could not restore" "$scratch/unplug.out" &&
	[ "$failure" = "failed: the device was unplugged" ]; echo $?)" \
	"expected exit 1, '/dev/dri/$gone was unplugged', no restore attempt and JSON failure 'the device was unplugged'; got $got; JSON $failure"
flipkms_device_remove fliplat-unplug

finish
