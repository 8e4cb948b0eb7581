#!/bin/bash
# SPDX-License-Identifier: MIT
# Debian's mutter 43 (GNOME's compositor) on flipkms through session.sh's
# generic path, its native KMS backend given logind and udev by
# tests/compositor/mutter-launch.sh, and wayland-info as the client:
#
#   mutter-comes-up        a client on its socket saw an output
#   card-taken-via-logind  it got the flipkms card through logind's
#                          TakeDevice (the mock's log), as on a real seat
#   atomic-modesetting     it drives flipkms with atomic commits (its log)
#   offers-presentation    wayland-info lists wp_presentation and wl_output
#   mutter-stops-cleanly   it exited with status 0 on SIGTERM
#
# No client draws: under TCG, Mesa 22.3's llvmpipe (mutter's GL renderer
# through GBM on flipkms) crashes mutter (SIGSEGV in llvmpipe's JIT code)
# once a client window is composited, and softpipe takes about 1.5 s a
# frame, beyond presentlat's 3 s frame-callback limit.
# usage: tests/compositor/mutter.sh
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/compositor/lib.sh
. "$here/lib.sh"
for c in mutter dbus-daemon udevadm; do
	command -v $c >/dev/null && continue
	skip mutter-comes-up "$c is not installed (scripts/setup)"
	exit 0
done
/usr/bin/python3 -c 'import dbusmock' 2>/dev/null ||
	{ skip mutter-comes-up "python3-dbusmock is not installed (scripts/setup)"; exit 0; }
minor=$(drm_minor_of flipkms) || { echo "not ok - setup: no flipkms card"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

FLIPFENCE_SESSION_LOG=$tmp/mutter.log "$here/session.sh" -w 90 -- "$here/mutter-launch.sh" -l "$tmp" -- \
	wayland-info >"$tmp/out" 2>&1
rc=$?
grep '^# session' "$tmp/out"
check mutter-comes-up "$([ $rc -ne 125 ]; echo $?)" "$(grep -A15 'did not come up' "$tmp/out" | tr '\n' ' ' | cut -c1-600)"
[ $rc -eq 125 ] && { finish; exit; }
check card-taken-via-logind "$(grep -q "^logind-mock: TakeDevice 226:$minor /dev/dri/card$minor\$" "$tmp/logind-mock.log"; echo $?)" \
	"expected TakeDevice 226:$minor in the mock's log: $(grep '^logind-mock' "$tmp/logind-mock.log" | tr '\n' ' ')"
check atomic-modesetting "$(grep -q "Added device '/dev/dri/card$minor' (flipkms) using atomic mode setting" "$tmp/mutter.log"; echo $?)" \
	"expected mutter to add card$minor with atomic mode setting: $(grep -m3 'Added device\|KMS' "$tmp/mutter.log" | tr '\n' ' ')"
check offers-presentation "$(grep -q "interface: 'wp_presentation'" "$tmp/out" && grep -q "interface: 'wl_output'" "$tmp/out"; echo $?)" \
	"expected wp_presentation and wl_output from wayland-info (status $rc): $(grep -c "^interface:" "$tmp/out") globals"
check mutter-stops-cleanly "$(grep -q '^# session: mutter-launch.sh exited 0 after SIGTERM' "$tmp/out"; echo $?)" \
	"expected mutter to exit with status 0 on SIGTERM, got session status $rc: $(grep -E 'after SIGTERM|still running|before it was' "$tmp/out" | tr '\n' ' ')"
finish
