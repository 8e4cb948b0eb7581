#!/bin/bash
# SPDX-License-Identifier: MIT
# The DRM device the guest exposes as card0 is flipkms.
. "$(dirname "$0")/lib.sh"

if [ -c /dev/dri/card0 ]; then pass card0-exists; else fail card0-exists "no /dev/dri/card0"; fi
name=$(cut -d' ' -f1 /sys/kernel/debug/dri/0/name 2>/dev/null)
check_eq card0-driver-is-flipkms flipkms "$name"
done_testing
