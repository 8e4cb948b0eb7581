#!/bin/bash
# SPDX-License-Identifier: MIT
# A compositor nobody wrote a preset for, through session.sh's generic path
# (the one scripts/compositor offers for any command line): Debian's cage
# 0.1.4, a wlroots kiosk, on flipkms, with weston-simple-shm animating in
# it. Everything it needs is given on the command line, as a user would:
# a non-root user (cage refuses root), the pixman renderer, and the way to
# stop it (its application ended: cage 0.1.4 aborts on SIGTERM, in
# wl_display_terminate).
#
#   cage-comes-up         a client on its socket saw an output
#   client-animates       weston-simple-shm was still drawing after 5 s
#   cage-stops-cleanly    it exited 0 once its application was ended
#   commits-latched       it flushed at least 10 commits to CRTC 0 with the
#                         CRTC on, and each was latched at the first vblank
#                         at or after its flush (from flipkms's trace)
#
# cage 0.1.4 offers no wp_presentation, so presentlat cannot run in it.
# usage: tests/compositor/generic.sh
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
command -v cage >/dev/null || { skip cage-comes-up "cage is not installed (scripts/setup)"; exit 0; }
drm_minor_of flipkms >/dev/null || { echo "not ok - setup: no flipkms card"; exit 1; }
tmp=$(mktemp -d)
trap 'trace_restore; rm -rf "$tmp"' EXIT

trace_start
echo 1 >$trace/events/flipkms/flipkms_commit_flush/enable
# timeout's status 124: the client was still drawing when its time was up.
"$here/session.sh" -u nobody -e WLR_RENDERER=pixman -s children -- cage sleep 1d -- \
	sh -c 'timeout -s INT 5 weston-simple-shm; [ $? -eq 124 ]' >"$tmp/out" 2>&1
rc=$?
trace_stop "$tmp/trace"
grep '^# session' "$tmp/out"

check cage-comes-up "$([ $rc -ne 125 ]; echo $?)" "$(grep -A15 'did not come up' "$tmp/out" | tr '\n' ' ' | cut -c1-600)"
[ $rc -eq 125 ] && { finish; exit; }
check client-animates "$rc" "weston-simple-shm did not draw for 5 s in cage, session status $rc: $(grep -v '^#' "$tmp/out" | tail -3 | tr '\n' ' ')"
check cage-stops-cleanly "$(grep -q '^# session: cage exited 0 after SIGTERM to its children' "$tmp/out"; echo $?)" \
	"expected cage to exit 0 once its application ended, got: $(grep -E 'exited|still running' "$tmp/out" | tr '\n' ' ')"

# Every commit flushed to CRTC 0 with the CRTC on, and the vblank that
# latched it against the first vblank at or after its flush: "FLUSHES BAD
# SEQNO:WANT:GOT...". A commit the trace ended before latching counts only
# if a vblank after its flush was traced.
latched=$(awk 'function f(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	/flipkms_commit_flush:/ && / crtc=0 / { if (f("active") == 1) { n++; seq[n] = f("seqno"); fl[n] = f("flushed") } next }
	/flipkms_vblank:/ && / crtc=0 / { for (i = done + 1; i <= n; i++) if (want[i] == "" && f("ideal") + 0 >= fl[i] + 0) want[i] = f("ideal"); next }
	/flipkms_latch:/ && / crtc=0 / { while (done < n && seq[done + 1] + 0 <= f("seqno") + 0) { done++; got[done] = f("vblank") } }
	END {
		for (i = 1; i <= n; i++) if (got[i] != want[i] && !(got[i] == "" && want[i] == "")) { b++; w = w " " seq[i] ":" want[i] ":" got[i] }
		print n + 0, b + 0 w }' "$tmp/trace")
read -r flushes bad examples <<<"$latched"
check commits-latched "$([ "$flushes" -ge 10 ] && [ "$bad" -eq 0 ]; echo $?)" \
	"expected at least 10 commits, each latched at the first vblank at or after its flush; $flushes commits, $bad not (seqno:want:got): $(echo "$examples" | cut -c1-300)"
echo "# cage flushed $flushes commits to CRTC 0"
finish
