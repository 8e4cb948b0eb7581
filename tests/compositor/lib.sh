# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# What the compositor tests share: presentlat run inside a session, and
# flipkms's trace events of that session on CLOCK_MONOTONIC (the clock of
# presentlat's times). Sourced after tests/lib.sh.

presentlat=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/presentlat/presentlat
trace=/sys/kernel/debug/tracing

# trace_start: flipkms's vblank, latch and out-fence events from now on, on
# the mono clock; trace_stop FILE: stop, and keep the text in FILE;
# trace_restore: the clock and events as they were (setting the clock
# empties the buffer, so only after trace_stop).
trace_start() {
	echo 0 >$trace/tracing_on
	echo mono >$trace/trace_clock
	echo >$trace/trace
	echo 1 >$trace/events/flipkms/flipkms_vblank/enable
	echo 1 >$trace/events/flipkms/flipkms_latch/enable
	echo 1 >$trace/events/flipkms/flipkms_out_fence_signaled/enable
	echo 1 >$trace/tracing_on
}

trace_stop() {
	echo 0 >$trace/tracing_on
	cat $trace/trace >"$1"
}

trace_restore() {
	echo 0 >$trace/tracing_on
	echo 0 >$trace/events/flipkms/enable
	echo local >$trace/trace_clock
}

# kernel_events TRACE OUT: CRTC 0's events in a trace_stop FILE, one a line:
#   v COUNT IDEAL_NS MISSED   a vblank flipkms counted (flipkms_vblank),
#                             MISSED the periods its timer ran late by
#   l VBLANK_NS SIGNAL_NS ERR  a commit it latched at that vblank
kernel_events() {
	awk '/flipkms_vblank:/ && / crtc=0 / {
		for (i = 1; i <= NF; i++) { if ($i ~ /^count=/) c = substr($i, 7); if ($i ~ /^ideal=/) t = substr($i, 7); if ($i ~ /^missed=/) m = substr($i, 8) }
		print "v", c, t, m }
	/flipkms_latch:/ && / crtc=0 / {
		for (i = 1; i <= NF; i++) { if ($i ~ /^vblank=/) v = substr($i, 8); if ($i ~ /^signal=/) s = substr($i, 8); if ($i ~ /^error=/) e = substr($i, 7) }
		print "l", v, s, e }' "$1" >"$2"
}

# off_vblank KERNEL FRAMES: how many of the frames (csv_frames) were not
# presented at the ideal time of the vblank whose count is their MSC, as
# the DRM event carries it (cut to the microsecond), then MSC:PRESENTED:VBLANK
# of each.
off_vblank() {
	awk 'FILENAME == ARGV[1] { if ($1 == "v") ideal[$2] = $3; next }
		{ if (!($5 in ideal) || ideal[$5] - ideal[$5] % 1000 != $3) { b++; w = w " " $5 ":" $3 ":" ideal[$5] } }
		END { print b + 0 w }' "$1" "$2"
}

# csv_frames CSV OUT: presentlat's presented counted frames, one a line:
#   INDEX COMMIT_NS PRESENTED_NS REFRESH_NS MSC FLAGS
csv_frames() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["presented"] == 1 && $col["warmup"] == 0 {
			print $col["index"], $col["commit_ns"], $col["presented_ns"], $col["refresh_ns"], $col["msc"], $col["flags"] }' \
		"$1" >"$2"
}

# mode_period_ns STATE: the period of the mode on CRTC 0 in a debugfs
# state dump: htotal * vtotal / clock, as DRM computes a frame's duration.
mode_period_ns() {
	awk '/^crtc\[/ { crtc = 1 } crtc && $1 == "mode:" { printf "%.0f", int($8 * $12 * 1000000 / $4); exit }' "$1" 2>/dev/null
}

# check_presentlat_session PREFIX COMPOSITOR RC DIR FRAMES: the checks of a
# session.sh run of presentlat -n FRAMES that exited RC, its output in
# DIR/out, its CSV and JSON in DIR/run.csv and DIR/run.json (PREFIX, e.g.
# "vkms-", tells two sessions of one test apart):
#   PREFIXCOMPOSITOR-comes-up, PREFIXCOMPOSITOR-stops-cleanly (exit 0 on
#   SIGTERM), PREFIXpresentlat-completes (exit 0: every frame got its
#   feedback), PREFIXframes-presented (FRAMES counted frames presented,
#   none discarded or without feedback).
# Leaves the frames in DIR/frames (csv_frames) and their number in $n;
# returns 1 if the compositor did not come up (the caller finishes there).
check_presentlat_session() {
	local prefix=$1 compositor=$2 rc=$3 dir=$4 frames=$5 counts
	check "$prefix$compositor-comes-up" "$([ "$rc" -ne 125 ]; echo $?)" \
		"$(grep -A15 'did not come up' "$dir/out" | tr '\n' ' ' | cut -c1-600)"
	[ "$rc" -eq 125 ] && return 1
	check "$prefix$compositor-stops-cleanly" \
		"$(grep -q "^# session: $compositor exited 0 after SIGTERM" "$dir/out"; echo $?)" \
		"expected $compositor to exit with status 0 on SIGTERM, got session status $rc: $(grep -E 'after SIGTERM' "$dir/out" | tr '\n' ' ')"
	check "${prefix}presentlat-completes" "$rc" \
		"presentlat exited $rc: $(grep '^presentlat:' "$dir/out" | tail -2 | tr '\n' ' ')"
	sed -n '/^  metric/,/^  [0-9]* presented/p' "$dir/out" | sed 's/^/# /'
	csv_frames "$dir/run.csv" "$dir/frames"
	n=$(wc -l <"$dir/frames")
	counts=$(jq -r '.counts | "\(.presented) \(.discarded) \(.without_feedback)"' "$dir/run.json" 2>&1)
	check "${prefix}frames-presented" "$([ "$n" -ge "$frames" ] && [ "$counts" = "$n 0 0" ]; echo $?)" \
		"expected $frames presented frames, none discarded or without feedback; got (presented discarded without) $counts"
	return 0
}

# check_on_grid NAME FRAMES PERIOD: every presented interval of FRAMES
# (csv_frames) is its MSC difference times PERIOD ns, to the microsecond:
# the display's fixed grid, whatever the client's pace.
check_on_grid() {
	local off
	off=$(awk -v p="$3" 'NR > 1 { e = ($3 - last_t) - ($5 - last_m) * p; if (e < 0) e = -e
		if (e >= 1000) { b++; w = w " " $5 ":" $3 - last_t } }
		{ last_t = $3; last_m = $5 } END { print b + 0 w }' "$2")
	check "$1" "$([ "${off%% *}" = 0 ] && [ "$(wc -l <"$2")" -gt 1 ] && [ "${3:-0}" -gt 0 ]; echo $?)" \
		"expected presented - previous = MSC difference x $3 ns, ${off%% *} off (msc:ns):$(echo "${off#* }" | cut -c1-300)"
}

# vrr_capable FILE: the value of the first vrr_capable property in FILE,
# the output of modetest -c, or "none" if no connector has one.
vrr_capable() {
	awk '/ vrr_capable:$/ { f = 1 } f && $1 == "value:" { v = $2; exit } END { print v == "" ? "none" : v }' "$1"
}
