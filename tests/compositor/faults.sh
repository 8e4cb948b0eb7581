#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's fault injection seen through a compositor: presentlat presents
# 300 frames under COMPOSITOR on flipkms (a count, not a time: the
# injections wait for flips, which a loaded machine makes more slowly; 6 s
# once ended before the delay began) while, once it is presenting, flipkms
# is told through debugfs to
#   drop_vblanks=3      the frame shown at the first vblank after the drop
#                       has an MSC 4 (N + 1) above the one shown before it,
#                       and is presented 4 periods later
#   fence_error=5       one latched commit's out-fence fails with -EIO; no
#                       compositor we run asks for out-fences (Weston 14's
#                       DRM backend and wlroots 0.15 never set
#                       OUT_FENCE_PTR), so nothing it holds sees the error:
#                       it must go on presenting, every frame, none discarded
#   signal_delay_us=5000  for the rest of the run the fences signal 5 ms
#                       after the vblank (in the trace: the latch's signal
#                       time, and an out-fence event stamped then and
#                       recorded no earlier), while every presented time is
#                       still its vblank's
# A drop that meets a frame the compositor had already missed on its own
# says nothing about the N + 1: the run is tried again (3 runs at most).
#
# usage: tests/compositor/faults.sh weston|sway
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
compositor=${1:?usage: $0 weston|sway}
command -v "$compositor" >/dev/null ||
	{ skip "$compositor-faults" "$compositor is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
ctl=/sys/kernel/debug/dri/$minor/crtc-0
tmp=$(mktemp -d)
chmod 0777 "$tmp"
reset_faults() { echo 0 >$ctl/signal_delay_us; echo 0 >$ctl/drop_vblanks; echo 0 >$ctl/fence_error; }
trap 'trace_restore; reset_faults; rm -rf "$tmp"' EXIT

# The injections, as root beside the session: each once flipkms has latched
# enough of the compositor's flips since the last.
inject() {
	local base
	base=$(flipkms_flips "$ctl")
	flipkms_flips_more "$ctl" "$base" 60 && sleep 0.5 || return 1
	echo 3 >$ctl/drop_vblanks
	base=$(flipkms_flips "$ctl")
	flipkms_flips_more "$ctl" "$base" 30 || return 1
	echo 5 >$ctl/fence_error
	base=$(flipkms_flips "$ctl")
	flipkms_flips_more "$ctl" "$base" 30 || return 1
	echo 5000 >$ctl/signal_delay_us
	echo injected
}

# run: one session; sets rc, and the files in $tmp.
run() {
	reset_faults
	trace_start
	inject >"$tmp/inject" 2>&1 &
	local injector=$!
	"$here/session.sh" "$compositor" -- "$presentlat" -n 300 -w 10 -q --csv "$tmp/run.csv" \
		--json "$tmp/run.json" >"$tmp/out" 2>&1
	rc=$?
	wait $injector
	trace_stop "$tmp/trace"
	reset_faults
	csv_frames "$tmp/run.csv" "$tmp/frames"
	kernel_events "$tmp/trace" "$tmp/kernel"
}

# vblank_period: the shortest time between two vblanks in the trace.
vblank_period() {
	awk '$1 == "v" && last { d = $3 - l3; if (!p || d < p) p = d } $1 == "v" { last = 1; l3 = $3 } END { print p + 0 }' "$tmp/kernel"
}

# drop_step: "STEP INTERVAL_NS" of the frame shown at the first vblank
# after the drop: its MSC and presented time less the previous shown
# frame's. That vblank is the one whose count is 4 above the last one's
# beyond the periods its timer ran late by, on the same grid of ideal
# times (vblanks turned off and on again jump too, onto a new grid; a
# drop that also met a late timer is no test: "missed"). "missed" too if
# the compositor showed nothing at the vblank before the drop or at the
# one after it; "none" or "several" if not exactly one vblank count
# jumped so.
drop_step() {
	awk -v p="$(vblank_period)" 'FILENAME == ARGV[1] { if ($1 != "v") next
			d = ($3 - ideal) - ($2 - last) * p
			if (last && $2 - last - $4 == 4 && d > -1000 && d < 1000) { after = $2; late = $4; n++ }
			last = $2; ideal = $3; next }
		{ msc[FNR] = $5; t[FNR] = $3; if ($5 == after) at = FNR }
		END {
			if (n != 1) { print n ? "several" : "none"; exit }
			if (late || !at || at == 1 || msc[at - 1] != after - 4) { print "missed"; exit }
			print msc[at] - msc[at - 1], t[at] - t[at - 1] }' "$tmp/kernel" "$tmp/frames"
}

for attempt in 1 2 3; do
	run
	[ $rc -eq 125 ] && break
	step=$(drop_step)
	[ "$step" = missed ] || break
	echo "# run $attempt: the compositor had missed a vblank next to the drop on its own; again"
done
grep '^# session' "$tmp/out"
check "$compositor-comes-up" "$([ $rc -ne 125 ]; echo $?)" "$(grep -A15 'did not come up' "$tmp/out" | tr '\n' ' ' | cut -c1-600)"
[ $rc -eq 125 ] && { finish; exit; }
check injected "$(grep -q injected "$tmp/inject"; echo $?)" "flipkms did not latch the compositor's flips: $(cat "$tmp/inject")"
check presents-through-faults "$rc" "presentlat exited $rc: $(grep '^presentlat:' "$tmp/out" | tail -2 | tr '\n' ' ')"
check_eq none-discarded "0 0" "$(jq -r '.counts | "\(.discarded) \(.without_feedback)"' "$tmp/run.json" 2>&1)"

period=$(vblank_period)
check_eq drop-msc-jumps-by-n-plus-1 4 "${step%% *}"
check drop-presented-n-plus-1-periods-later "$(awk -v s="$step" -v p="$period" 'BEGIN { split(s, f, " "); d = f[2] - 4 * p; exit !(p > 0 && d > -1000 && d < 1000) }'; echo $?)" \
	"expected the frame after the drop presented 4 periods ($period ns) after the one before, got (step interval) $step"

# The failed fence: one latch with error -5, and frames shown after it.
err_vblank=$(awk '$1 == "l" && $4 == -5 { print $2 }' "$tmp/kernel")
check_eq fence-error-latched-once 1 "$(echo "$err_vblank" | grep -c .)"
after=$(awk -v v="${err_vblank:-0}" '$3 > v - v % 1000 { n++ } END { print n + 0 }' "$tmp/frames")
check presents-after-fence-error "$([ -n "$err_vblank" ] && [ "$after" -ge 30 ]; echo $?)" \
	"expected 30 frames presented after the failed fence, got $after"

# The delay: every latch signals at its vblank or 5 ms after it, at least
# 20 after; each delayed signal has its out-fence event, recorded no
# earlier than its stamp; every presented time is still its vblank's.
delays=$(awk '$1 == "l" { d = $3 - $2; if (d == 0) z++; else if (d == 5000000) f++; else o++ }
	END { print z + 0, f + 0, o + 0 }' "$tmp/kernel")
read -r _ delayed other <<<"$delays"
check delay-signals-5ms-after-vblank "$([ "$delayed" -ge 20 ] && [ "$other" -eq 0 ]; echo $?)" \
	"expected latches signalling at the vblank or 5 ms after it, 20 of them after; got (at, 5 ms after, other) $delays"
# The latches of presentlat's frames: up to the last one presented (the
# compositor's exit and fbdev's restore commit after it are not the run's).
lastp=$(awk '{ if ($3 > t) t = $3 } END { printf "%.0f", t + 1000 }' "$tmp/frames")
late=$(awk -v lastp="$lastp" '/flipkms_latch:/ && / crtc=0 / { for (i = 1; i <= NF; i++) { if ($i ~ /^vblank=/) v = substr($i, 8); if ($i ~ /^signal=/) s = substr($i, 8) }
		if (s != v && v + 0 <= lastp + 0) want[s] = 1 }
	/flipkms_out_fence_signaled:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^stamp=/) s = substr($i, 7); if ($i ~ /^[0-9]+\.[0-9]+:$/) t = $i }
		sub(/:/, "", t); split(t, p, "."); if (s in want) { seen[s] = 1; if (p[1] * 1000000 + p[2] < int(s / 1000)) early++ } }
	END { for (s in want) if (!(s in seen)) missing++; print missing + 0, early + 0 }' "$tmp/trace")
check_eq delayed-fence-events-after-stamp "0 0" "$late"
bad=$(off_vblank "$tmp/kernel" "$tmp/frames")
check_eq presented-is-its-vblank-under-delay 0 "${bad%% *}"
finish
