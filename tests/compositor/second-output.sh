#!/bin/bash
# SPDX-License-Identifier: MIT
# A second output plugged into a running Weston and pulled out mid-frame, on
# a display built through configfs alone: device flipkms/desk with three
# outputs (tests/lib.sh's flipkms_device), the second's connector set
# disconnected (status 2) before Weston starts, the third's a dynamic
# connector not yet added (an MST port to come), Debian's udevd in the guest
# for Weston's hot-plug monitor (as in hotplug.sh). wayland-info lists the
# compositor's wl_outputs with the model Weston reads from each flipkms EDID
# ("flipkms <instance>.<index>" on a configfs device, read as "flipkms
# <index>") and the current mode:
#
#   one-output-at-start     flipkms 0 alone, 1920x1080 at 60 Hz
#   second-output-added     after status 1 on the second connector: flipkms 0
#                           and flipkms 1, each 1920x1080 at 60 Hz
#   presents-on-new-output  presentlat -o NAME (fullscreen on the new output)
#                           presents 30 frames, as flips of the second CRTC
#   unplug-mid-frame-survived  status 2 while presentlat presents there (20
#                           frames in): Weston drops the output, flipkms 0 is
#                           left, and the first CRTC flips on (20 flips)
#   client-moved-on-unplug  that presentlat ends with exit 0 on SIGINT, every
#                           frame with its feedback, more frames presented
#                           than the second CRTC flipped: Weston moved its
#                           window to the first output
#   first-output-presents   then presentlat -o on the first output presents
#                           30 frames, as flips of the first CRTC
#   hot-added-output-appears  enabled 1 on the dynamic connector: a connector
#                           that did not exist appears, and Weston adds
#                           flipkms 2, 1920x1080 at 60 Hz
#   presents-on-hot-added-output  presentlat -o on it: 15 flips of the third
#                           CRTC
#   hot-removed-mid-frame-survived  enabled 0 while presentlat presents there:
#                           the connector goes, Weston drops the output,
#                           flipkms 0 is left, that presentlat exits 0 on
#                           SIGINT
#   weston-stops-cleanly    SIGTERM ends it, exit status 0
#
# usage: tests/compositor/second-output.sh    (flipkms loaded, no device desk)
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
udevd=/lib/systemd/systemd-udevd
command -v weston >/dev/null && command -v wayland-info >/dev/null && [ -x $udevd ] ||
	{ skip one-output-at-start "weston, wayland-info or udev is not installed (scripts/setup)"; exit 0; }
tmp=$(mktemp -d)
export FLIPFENCE_SESSION_LOG=$tmp/weston.log
cleanup() {
	stop_udevd
	flipkms_device_remove desk
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
card=$(flipkms_device desk 3 2) || { echo "not ok - setup: cannot build configfs device desk"; exit 1; }
export status=/sys/kernel/config/flipkms/desk/connectors/n1/status
export dynamic=/sys/kernel/config/flipkms/desk/connectors/n2/enabled
echo 2 >"$status"
export dri=/sys/kernel/debug/dri/${card#card}
# udevd in the foreground, a child of this script: in the test's process
# group, so that the runner's timeout kills it with the test, and stopped
# by the trap on any exit (a daemonised one would outlive a killed test).
start_udevd "$tmp/udevd.log"

cat >"$tmp/client.sh" <<'CLIENT'
# shellcheck source=tests/lib.sh
. tests/lib.sh
out=$1
# The wl_outputs, sorted, on one line: MODEL=NAME=WxH@HZ (the current mode).
outputs() {
	wayland-info 2>/dev/null | awk '/^interface: / { o = /wl_output/ }
		o && $1 == "name:" { name = $2 }
		o && $1 == "make:" { sub(/.*model: \047/, ""); sub(/\047.*/, ""); model = $0
			sub(/^flipkms [0-9]+\./, "flipkms ", model) }
		o && $1 == "width:" { mode = $2 "x" $5 "@" $8 }
		o && $1 == "flags:" && / current/ { print model "=" name "=" mode }' | sort | paste -sd, -
}
models() { outputs | sed 's/=[^,]*//g'; }
# Waits up to 10 s for the models to be $1 (wayland-info's own time counts).
models_become() {
	local end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do [ "$(models)" = "$1" ] && return 0; sleep 0.1; done
	return 1
}
# Waits up to 10 s for Weston to log that it disabled output $1. wayland-info
# must not run while an output goes: Weston 14 crashes (SIGSEGV in libweston's
# xdg-output, get_xdg_output on a wl_output whose head is gone) when a client
# binds the wl_output just before the global goes (3 of 10 sessions here).
disabled() {
	local end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		grep -q "Disabling output $1\$" "$FLIPFENCE_SESSION_LOG" && return 0
		sleep 0.1
	done
	return 1
}
flips() { flipkms_flips "$dri/crtc-$1"; }
# waits up to 10 s for CRTC $1 to flip $3 times more than $2
flips_more() { flipkms_flips_more "$dri/crtc-$1" "$2" "$3"; }
presentlat=build/presentlat/presentlat
echo "start: $(outputs)"
echo 1 >"$status"
models_become "flipkms 0,flipkms 1"
echo "plugged: $(outputs)"
new=$(outputs | tr , '\n' | sed -n 's/^flipkms 1=\([^=]*\)=.*/\1/p')
first=$(outputs | tr , '\n' | sed -n 's/^flipkms 0=\([^=]*\)=.*/\1/p')
base=$(flips 1)
$presentlat -o "$new" -n 30 -w 0 -q && echo "presented on new $new: $(($(flips 1) - base)) flips"
# Mid-frame: the second output goes while presentlat presents there.
base=$(flips 1)
$presentlat -o "$new" -t 60 -w 0 -q --json "$out/new.json" 2>"$out/new.err" &
p=$!
flips_more 1 "$base" 20
gone_at=$(flips 0) on_new=$(($(flips 1) - base))
echo 2 >"$status"
disabled "$new"
models_become "flipkms 0"
echo "unplugged: $(models)"
flips_more 0 "$gone_at" 20 && echo "first crtc flipped on"
kill -INT $p
wait $p
echo "new exit $? on_new $on_new"
base=$(flips 0)
$presentlat -o "$first" -n 30 -w 0 -q && echo "presented on first $first: $(($(flips 0) - base)) flips"
# An MST-style port: a connector added, presented on, removed mid-frame.
echo 1 >"$dynamic"
models_become "flipkms 0,flipkms 2"
echo "added: $(outputs)"
added=$(outputs | tr , '\n' | sed -n 's/^flipkms 2=\([^=]*\)=.*/\1/p')
base=$(flips 2)
$presentlat -o "$added" -t 60 -w 0 -q 2>"$out/added.err" &
p=$!
flips_more 2 "$base" 15 && echo "added crtc flipped"
echo 0 >"$dynamic"
disabled "$added"
models_become "flipkms 0"
echo "removed: $(models)"
kill -INT $p
wait $p
echo "added exit $?"
true
CLIENT
"$here/session.sh" -c "$card" weston -- bash "$tmp/client.sh" "$tmp" >"$tmp/out" 2>&1
rc=$?
grep -E '^# session|^(start|plugged|unplugged|presented|first|new|added|removed)[: ]' "$tmp/out" | sed 's/^\([^#]\)/# \1/'
grep -E "head 'Virtual|Output 'Virtual.*(enabled|no heads)|Disabling output" "$tmp/weston.log" | sed 's/^/# weston: /'
mode=1920x1080@60.000
# A line of the client's, MODEL=NAME=MODE as MODEL MODE (names differ by series).
shown() { grep "^$1" "$tmp/out" | sed 's/=[^=]*=\([^,]*\)/ \1/g'; }
check_eq one-output-at-start "start: flipkms 0 $mode" "$(shown start:)"
check_eq second-output-added "plugged: flipkms 0 $mode,flipkms 1 $mode" "$(shown plugged:)"
# 30 frames or more as flips of the CRTC (Weston's own repaints may add some)
thirty='([3-9][0-9]|[0-9]{3,}) flips'
check presents-on-new-output "$(grep -qE "^presented on new [^ ]+: $thirty" "$tmp/out"; echo $?)" \
	"expected presentlat -o <new output> to present 30 frames as 30 flips of the second CRTC: $(grep -E '^presented|^presentlat:' "$tmp/out" | tr '\n' ' ')"
check unplug-mid-frame-survived "$(grep -q '^unplugged: flipkms 0$' "$tmp/out" &&
	grep -q '^first crtc flipped on' "$tmp/out"; echo $?)" \
	"expected flipkms 0 alone after the unplug and 20 more flips of the first CRTC: $(grep -E '^unplugged' "$tmp/out")"
read -r _ _ new_rc _ on_new <<<"$(grep '^new exit' "$tmp/out")"
counts=$(jq -r '"\(.counts.presented) \(.counts.without_feedback)"' "$tmp/new.json" 2>/dev/null)
check client-moved-on-unplug "$([ "${new_rc:-}" = 0 ] && [ "${counts#* }" = 0 ] &&
	[ "${counts%% *}" -gt "${on_new:-0}" ]; echo $?)" \
	"expected the presentlat on the output that went to exit 0 on SIGINT with every frame's feedback and more frames presented than the second CRTC flipped ($on_new): $(grep '^new exit' "$tmp/out"), (presented without) $counts: $(tr '\n' ' ' <"$tmp/new.err")"
check first-output-presents "$(grep -qE "^presented on first [^ ]+: $thirty" "$tmp/out"; echo $?)" \
	"expected presentlat -o <first output> to present 30 frames as 30 flips of the first CRTC after the unplug: $(grep -E '^presented|^presentlat:' "$tmp/out" | tr '\n' ' ')"
check_eq hot-added-output-appears "added: flipkms 0 $mode,flipkms 2 $mode" "$(shown added:)"
check presents-on-hot-added-output "$(grep -q '^added crtc flipped' "$tmp/out"; echo $?)" \
	"expected 15 flips of the third CRTC while presentlat -o <added output> presents: $(grep -E '^added|^presentlat:' "$tmp/out" | tr '\n' ' ')"
check hot-removed-mid-frame-survived "$(grep -q '^removed: flipkms 0$' "$tmp/out" &&
	grep -q '^added exit 0$' "$tmp/out"; echo $?)" \
	"expected flipkms 0 alone after the removal and that presentlat to exit 0 on SIGINT: $(grep -E '^removed|^added exit' "$tmp/out" | tr '\n' ' ') $(tr '\n' ' ' <"$tmp/added.err")"
check weston-stops-cleanly "$(grep -q '^# session: weston exited 0 after SIGTERM' "$tmp/out"; echo $?)" \
	"expected weston to exit with status 0 on SIGTERM, got session status $rc: $(grep -E 'after SIGTERM|before it was stopped' "$tmp/out" | tr '\n' ' ')"
finish
