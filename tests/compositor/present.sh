#!/bin/bash
# SPDX-License-Identifier: MIT
# A Debian compositor on a KMS driver in the guest, and what it presents to
# presentlat (userspace/presentlat), one frame per frame callback:
#
#   COMPOSITOR-comes-up    tests/compositor/session.sh saw it ready
#   COMPOSITOR-stops-cleanly
#                          it exited with status 0 on SIGTERM, as Weston
#                          and sway do (not killed, no crash on shutdown)
#   presentlat-completes   exit 0: every frame got its feedback
#   frames-presented       FRAMES counted frames presented, none discarded
#   feedback-flags         every one VSYNC, HW_CLOCK and HW_COMPLETION
#   msc-increases          the MSC (the DRM vblank count) always goes up
#   refresh-is-mode-period the refresh the compositor reports is the period
#                          of the mode it set, to the microsecond (it
#                          passes it on in mHz)
#   interval-is-msc-times-period
#                          between two presentations, their MSC difference
#                          times the mode's period, to the microsecond
#   flipkms only, against its trace events of the run:
#   presented-is-its-vblank
#                          every frame's presented time is the ideal time
#                          of the flipkms vblank whose count is its MSC:
#                          equal to the nanosecond once that time is cut to
#                          the microsecond the DRM event carries
#   each-msc-is-a-latched-vblank
#                          at that vblank flipkms latched a commit
#
# usage: tests/compositor/present.sh weston|sway DRIVER [FRAMES]
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
compositor=${1:?usage: $0 weston|sway DRIVER [FRAMES]}
driver=${2:?usage: $0 weston|sway DRIVER [FRAMES]}
frames=${3:-300}
tmp=$(mktemp -d)
chmod 0777 "$tmp"	# sway's clients run as nobody and write their CSV here
trap 'trace_restore; rm -rf "$tmp"' EXIT

command -v "$compositor" >/dev/null ||
	{ skip "$compositor-comes-up" "$compositor is not installed (scripts/setup)"; exit 0; }
drm_minor_of "$driver" >/dev/null || { echo "not ok - setup: no $driver card"; exit 1; }
[ "$driver" = flipkms ] && trace_start
FLIPFENCE_SESSION_STATE=$tmp/state "$here/session.sh" -d "$driver" "$compositor" -- \
	"$presentlat" -n "$frames" -w 10 --csv "$tmp/run.csv" --json "$tmp/run.json" >"$tmp/out" 2>&1
rc=$?
trace_stop "$tmp/trace"
grep '^# session' "$tmp/out"

check_presentlat_session "" "$compositor" "$rc" "$tmp" "$frames" || { finish; exit; }
flags=$(awk '{ if ($6 % 8 != 7) b++ } END { print b + 0 }' "$tmp/frames")
check feedback-flags "$([ "$flags" -eq 0 ] && [ "$n" -gt 0 ]; echo $?)" \
	"expected VSYNC, HW_CLOCK and HW_COMPLETION on every frame, $flags without: $(awk '{ print $6 }' "$tmp/frames" | sort | uniq -c | tr '\n' ' ')"
back=$(awk 'NR > 1 && $5 <= last { b++ } { last = $5 } END { print b + 0 }' "$tmp/frames")
check msc-increases "$([ "$back" -eq 0 ] && [ "$n" -gt 0 ]; echo $?)" "$back frames with an MSC not above the previous one's"

period=$(mode_period_ns "$tmp/state")
[ -n "$period" ] || period=0
off=$(awk -v p="$period" '{ d = $4 - p; if (d < 0) d = -d; if (d >= 1000) { b++; w = w " " $4 } } END { print b + 0 w }' "$tmp/frames")
check refresh-is-mode-period "$([ "${off%% *}" = 0 ] && [ "$period" -gt 0 ] && [ "$n" -gt 0 ]; echo $?)" \
	"expected refresh = $period ns to the us, ${off%% *} frames off:$(echo "${off#* }" | tr ' ' '\n' | sort | uniq -c | tr '\n' ' ')"
check_on_grid interval-is-msc-times-period "$tmp/frames" "$period"
echo "# $n frames, period $period ns; MSC steps: $(awk 'NR > 1 { print $5 - last } { last = $5 }' "$tmp/frames" | sort -n | uniq -c | tr '\n' ' ')"

if [ "$driver" = flipkms ]; then
	kernel_events "$tmp/trace" "$tmp/kernel"
	bad=$(off_vblank "$tmp/kernel" "$tmp/frames")
	check presented-is-its-vblank "$([ "${bad%% *}" = 0 ] && [ "$n" -gt 0 ]; echo $?)" \
		"expected each presented time to be its MSC's vblank time cut to the us, ${bad%% *} not (msc:presented:vblank):$(echo "${bad#* }" | cut -c1-300)"
	bad=$(awk 'FILENAME == ARGV[1] { if ($1 == "v") ideal[$2] = $3; else latched[$2] = 1; next }
		{ if (!($5 in ideal) || !(ideal[$5] in latched)) { b++; w = w " " $5 } }
		END { print b + 0 w }' "$tmp/kernel" "$tmp/frames")
	check each-msc-is-a-latched-vblank "$([ "${bad%% *}" = 0 ] && [ "$n" -gt 0 ]; echo $?)" \
		"expected every presented MSC to be a vblank at which flipkms latched a commit, ${bad%% *} not:$(echo "${bad#* }" | cut -c1-300)"
fi
finish
