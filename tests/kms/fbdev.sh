#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's emulated fbdev: with the default fbdev=1 the device has a
# /dev/fbN whose fix info names the flipkms DRM driver and whose size is the
# preferred mode; loaded with fbdev=0 it has none.
#
# usage: tests/kms/fbdev.sh   (flipkms loaded with its defaults)
set -u
failures=0
check() {	# NAME WANT GOT
	if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
fb_of_flipkms() {
	local f
	for f in /sys/class/graphics/fb*; do
		[ -e "$f/name" ] && grep -q flipkms "$f/name" && { echo "${f##*/}"; return 0; }
	done
	return 1
}
fb=$(fb_of_flipkms)
check fbdev-present-by-default 0 $?
check fbdev-node-exists yes "$([ -c "/dev/${fb:-none}" ] && echo yes || echo no)"
check fbdev-size-is-preferred-mode 1920,1080 "$(cat "/sys/class/graphics/${fb:-none}/virtual_size" 2>/dev/null)"
check fbdev-32-bpp 32 "$(cat "/sys/class/graphics/${fb:-none}/bits_per_pixel" 2>/dev/null)"
here=$(cd "$(dirname "$0")" && pwd)
export -f fb_of_flipkms
check fbdev-off-by-parameter 1 "$("$here/with-module.sh" flipkms:fbdev=0 -- bash -c 'fb_of_flipkms >/dev/null'; echo $?)"
[ $failures -eq 0 ]
