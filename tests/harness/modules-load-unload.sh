#!/bin/bash
# SPDX-License-Identifier: MIT
# syncfw and flipkms are loaded by the guest, unload cleanly and load again.
. "$(dirname "$0")/lib.sh"

loaded() {
	grep -q "^$1 " /proc/modules
}

for m in syncfw flipkms; do
	if loaded $m; then pass "$m-loaded-at-boot"; else fail "$m-loaded-at-boot" "not in /proc/modules"; fi
done

if modprobe -r -d "$FLIPFENCE_MODROOT" flipkms syncfw && ! loaded flipkms && ! loaded syncfw; then
	pass modules-unload
else
	fail modules-unload "still loaded: $(grep -E '^(flipkms|syncfw) ' /proc/modules)"
fi

if modprobe -d "$FLIPFENCE_MODROOT" syncfw && modprobe -d "$FLIPFENCE_MODROOT" flipkms &&
	loaded syncfw && loaded flipkms; then
	pass modules-reload
else
	fail modules-reload "modules did not load again"
fi
done_testing
