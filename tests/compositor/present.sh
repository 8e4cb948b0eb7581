#!/bin/bash
# SPDX-License-Identifier: MIT
# A Debian compositor on a KMS driver in the guest, and what it presents:
# weston-presentation-shm (Weston's own presentation-time client) commits
# a frame per frame callback and prints, for each, the presentation
# feedback's flags, MSC and the time since the previous presentation.
#
#   COMPOSITOR-comes-up, -stops-cleanly   tests/compositor/session.sh
#   frames-presented       at least FRAMES frames presented, none discarded
#                          after the first few
#   feedback-flags         every one VSYNC, HW_CLOCK and HW_COMPLETION
#   msc-increases          the MSC (the DRM vblank count) never goes back
#   interval-is-msc-times-period
#                          after the first 10, the time between two
#                          presentations is their MSC difference times the
#                          mode's period, to the printed microsecond
#   flipkms only, from its trace events:
#   each-msc-is-a-latched-vblank
#                          every presented MSC is a vblank flipkms counted
#                          and at which it latched a commit
#
# usage: tests/compositor/present.sh weston|sway DRIVER [FRAMES]
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
compositor=${1:?usage: $0 weston|sway DRIVER [FRAMES]}
driver=${2:?usage: $0 weston|sway DRIVER [FRAMES]}
frames=${3:-120}
tmp=$(mktemp -d)
trace=/sys/kernel/debug/tracing
trap 'echo 0 >$trace/tracing_on; echo 0 >$trace/events/flipkms/enable; rm -rf "$tmp"' EXIT

command -v "$compositor" >/dev/null && command -v weston-presentation-shm >/dev/null ||
	{ skip "$compositor-comes-up" "$compositor or weston-presentation-shm is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of "$driver") || { echo "not ok - setup: no $driver card"; exit 1; }
if [ "$driver" = flipkms ]; then
	echo >$trace/trace
	echo 1 >$trace/events/flipkms/flipkms_vblank/enable
	echo 1 >$trace/events/flipkms/flipkms_latch/enable
	echo 1 >$trace/tracing_on
fi
# The client exits on SIGPIPE once head has its lines; timeout in case it stalls.
FLIPFENCE_SESSION_STATE=$tmp/state "$here/session.sh" -d "$driver" "$compositor" -- sh -c \
	"timeout -s INT 20 stdbuf -oL weston-presentation-shm -f | head -n $((frames + 10))" \
	>"$tmp/out" 2>&1
rc=$?
echo 0 >$trace/tracing_on
grep '^# session' "$tmp/out"

check "$compositor-comes-up" "$([ $rc -ne 125 ]; echo $?)" "$(grep -A15 'did not come up' "$tmp/out" | tr '\n' ' ' | cut -c1-600)"
[ $rc -eq 125 ] && { finish; exit; }
check "$compositor-stops-cleanly" "$(grep -q "exited [0-9]* after SIGTERM" "$tmp/out"; echo $?)" \
	"expected $compositor to exit on SIGTERM, got session status $rc"

# "    12: f2c 1 ms, c2p 28 ms, f2p 29 ms, p2p 16667 us, t2p 28085, [sce_], seq 501"
awk '/^ *[0-9]+: f2c/ { for (i = 1; i <= NF; i++) { if ($i == "p2p") p = $(i + 1); if ($i == "seq") s = $(i + 1); if ($i ~ /^\[/) f = $i }
	print p, s, f }' "$tmp/out" >"$tmp/frames"
n=$(wc -l <"$tmp/frames")
discarded=$(tail -n +6 "$tmp/out" | grep -c '^discarded')
check "frames-presented" "$([ "$n" -ge "$frames" ] && [ "$discarded" -eq 0 ]; echo $?)" \
	"expected $frames presented frames and no discarded one after the first few, got $n and $discarded"
flags=$(awk '$3 !~ /s/ || $3 !~ /c/ || $3 !~ /e/' "$tmp/frames" | wc -l)
check feedback-flags "$([ "$flags" -eq 0 ] && [ "$n" -gt 0 ]; echo $?)" \
	"expected VSYNC, HW_CLOCK and HW_COMPLETION on every frame, $flags without: $(awk '{ print $3 }' "$tmp/frames" | sort | uniq -c | tr '\n' ' ')"
back=$(awk 'NR > 1 && $2 + 0 <= last { b++ } { last = $2 + 0 } END { print b + 0 }' "$tmp/frames")
check msc-increases "$([ "$back" -eq 0 ] && [ "$n" -gt 0 ]; echo $?)" "$back frames with an MSC not above the previous one's"

# The period of the mode the compositor set, from the DRM state it left
# while running: htotal * vtotal / clock.
period_us=$(awk '/^crtc\[/ { crtc = 1 } crtc && $1 == "mode:" { printf "%.4f", $8 * $12 * 1000 / $4; exit }' \
	"$tmp/state" 2>/dev/null)
[ -n "$period_us" ] || period_us=0
off=$(awk -v p="$period_us" 'NR > 10 { d = $2 - last; e = $1 - d * p; if (e < 0) e = -e; if (e > 1.5) { b++; w = w " " $2 ":" $1 } }
	{ last = $2 } END { print b + 0 w }' "$tmp/frames")
check interval-is-msc-times-period "$([ "${off%% *}" = 0 ] && [ "$n" -gt 10 ]; echo $?)" \
	"expected p2p = MSC difference x $period_us us, ${off%% *} off (msc:p2p):${off#* }"
echo "# $n frames, period $period_us us; MSC steps: $(awk 'NR > 1 { print $2 - last } { last = $2 }' "$tmp/frames" | sort -n | uniq -c | tr '\n' ' ')"

if [ "$driver" = flipkms ]; then
	# The vblanks flipkms counted (count ideal) and latched at (ideal).
	awk '/flipkms_vblank:/ && / crtc=0 / { for (i = 1; i <= NF; i++) { if ($i ~ /^count=/) c = substr($i, 7); if ($i ~ /^ideal=/) t = substr($i, 7) } print "v", c, t }
		/flipkms_latch:/ && / crtc=0 / { for (i = 1; i <= NF; i++) if ($i ~ /^vblank=/) print "l", substr($i, 8) }' \
		$trace/trace >"$tmp/kernel"
	unmatched=$(awk 'FILENAME == ARGV[1] { if ($1 == "v") ideal[$2] = $3; else latched[$2] = 1; next }
		{ if (!($2 in ideal) || !(ideal[$2] in latched)) { u++; w = w " " $2 } }
		END { print u + 0 w }' "$tmp/kernel" "$tmp/frames")
	check each-msc-is-a-latched-vblank "$([ "${unmatched%% *}" = 0 ] && [ "$n" -gt 0 ]; echo $?)" \
		"expected every presented MSC to be a vblank at which flipkms latched a commit, ${unmatched%% *} not:${unmatched#* }"
fi
finish
