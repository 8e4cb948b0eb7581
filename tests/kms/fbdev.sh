#!/bin/bash
# SPDX-License-Identifier: MIT
# flipkms's emulated fbdev: with the default fbdev=1 the device has a
# /dev/fbN whose fix info names the flipkms DRM driver and whose size is the
# preferred mode; loaded with fbdev=0 it has none.
#
# usage: tests/kms/fbdev.sh   (flipkms loaded with its defaults)
set -u
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
fb_of_flipkms() {
	local f
	for f in /sys/class/graphics/fb*; do
		[ -e "$f/name" ] && grep -q flipkms "$f/name" && { echo "${f##*/}"; return 0; }
	done
	return 1
}
fb=$(fb_of_flipkms)
check_eq fbdev-present-by-default 0 $?
check_eq fbdev-node-exists yes "$([ -c "/dev/${fb:-none}" ] && echo yes || echo no)"
check_eq fbdev-size-is-preferred-mode 1920,1080 "$(cat "/sys/class/graphics/${fb:-none}/virtual_size" 2>/dev/null)"
check_eq fbdev-32-bpp 32 "$(cat "/sys/class/graphics/${fb:-none}/bits_per_pixel" 2>/dev/null)"
here=$(cd "$(dirname "$0")" && pwd)
export -f fb_of_flipkms
check_eq fbdev-off-by-parameter 1 "$("$here/with-module.sh" flipkms:fbdev=0 -- bash -c 'fb_of_flipkms >/dev/null'; echo $?)"
finish
