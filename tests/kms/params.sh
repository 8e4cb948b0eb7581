#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's shape parameters at load (Documentation/flipkms.rst, "Module
# parameters"), each shape checked by build/tests/kms/params (CRTCs,
# connectors, each CRTC's own primary/overlay/cursor planes, a flip on
# every CRTC at once):
#
#   overlays=0, 2, 4      that many overlays per output
#   cursor=0              no cursor plane
#   outputs=4             four outputs (with overlays=4 cursor=0 as well)
#   outputs=0, 5, overlays=5, outputs=x
#                         out of range: the load fails with EINVAL and
#                         leaves nothing loaded
#   off-crtc-frame-ppm    frame.ppm of a CRTC that is off (the second
#                         output, loaded with fbdev=0: 6.1's fbdev
#                         emulation lights the first output, 6.12's
#                         every one) fails with
#                         ENODATA, at once, and the CRTC's own flips work
#                         after it
#
# Subtests are named after the parameters, e.g. outputs=4/crtc-3-planes.
# flipkms is put back with its defaults however the test ends.
#
# usage: tests/kms/params.sh      (in the guest, as root)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
params=$top/build/tests/kms/params
tmp=$(mktemp -d)
mp() { modprobe -d "$FLIPFENCE_MODROOT" "$@"; }
loaded() { grep -q '^flipkms ' /proc/modules; }
restore() {
	loaded && mp -r flipkms
	mp flipkms || echo "# $0: cannot load flipkms again"
	rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 143' TERM INT

# shape PARAMS OUTPUTS OVERLAYS CURSOR: load with PARAMS, check the shape.
shape() {
	local line
	loaded && ! mp -r flipkms && { fail "$1" "cannot unload flipkms first"; return; }
	# fbdev=0: the shape is the point, and fbcon taking over and giving
	# back a 1920x1080 console costs seconds a load on the debug kernel
	# (kms/fbdev tests fbdev emulation).
	# shellcheck disable=SC2086 # PARAMS are words
	if ! mp flipkms $1 fbdev=0 2>"$tmp/load"; then
		fail "$1" "the load failed: $(cat "$tmp/load")"
		return
	fi
	"$params" -o "$2" -v "$3" -c "$4" flipkms >"$tmp/out" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok - "*) pass "${1// /,}/${line#ok - }" ;;
		"not ok - "*) echo "not ok - ${1// /,}/${line#not ok - }"; failures=$((failures + 1)) ;;
		"skip - "*) result_line "skip - ${1// /,}/${line#skip - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$tmp/out"
}

shape "overlays=0" 1 0 1
shape "overlays=2" 1 2 1
shape "overlays=4" 1 4 1
shape "cursor=0" 1 1 0
shape "outputs=4" 4 1 1
shape "outputs=4 overlays=4 cursor=0" 4 4 0

# Out of range: refused at load, nothing left behind.
for bad in outputs=0 outputs=5 overlays=5 outputs=x; do
	loaded && mp -r flipkms
	if mp flipkms "$bad" 2>"$tmp/load"; then
		fail "$bad-refused" "the load succeeded"
	elif ! grep -q 'Invalid argument' "$tmp/load"; then
		fail "$bad-refused" "expected EINVAL, got: $(cat "$tmp/load")"
	elif loaded; then
		fail "$bad-refused" "flipkms is loaded after the failed load"
	else
		pass "$bad-refused"
	fi
done

# frame.ppm of a CRTC that is off: nothing on screen to compose.
loaded && mp -r flipkms
if mp flipkms outputs=2 fbdev=0; then
	minor=$(drm_minor_of flipkms)
	off=/sys/kernel/debug/dri/$minor/crtc-1
	timeout 10 cat "$off/frame.ppm" >"$tmp/ppm" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		fail off-crtc-frame-ppm-no-data "the read succeeded ($(wc -c <"$tmp/ppm") bytes) on a CRTC that is off"
	elif [ $rc -eq 124 ]; then
		fail off-crtc-frame-ppm-no-data "the read hung for 10 s"
	else
		grep -q 'No data available' "$tmp/err" && pass off-crtc-frame-ppm-no-data ||
			fail off-crtc-frame-ppm-no-data "expected ENODATA, got: $(cat "$tmp/err")"
	fi
	# The CRTC is no worse for it: both outputs flip.
	shape_out=$("$params" -o 2 -v 1 -c 1 flipkms 2>&1)
	check off-crtc-flips-after-frame-ppm "$(printf '%s\n' "$shape_out" | grep -q '^ok - crtc-1-flips'; echo $?)" \
		"$(printf '%s\n' "$shape_out" | grep '^not ok' | head -3 | tr '\n' ' ')"
else
	fail off-crtc-frame-ppm-no-data "flipkms outputs=2 fbdev=0 would not load"
fi

finish
