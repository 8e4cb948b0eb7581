# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# What make bench's guest half (guest.sh) and scripts/profile's
# (profile.sh) set up alike. Sourced after tests/lib.sh.

# vkms as the anchor, with the planes of the composer workload, and the
# kprobe that counts its compositions (vkms keeps no count of its own;
# compose-bench reads the probe's from kprobe_profile).
bench_load_vkms() {
	modprobe -d "$FLIPFENCE_MODROOT" vkms enable_overlay=1 enable_cursor=1 || return
	echo 'p:flipfence_vkms_compose vkms_composer_worker' >>/sys/kernel/debug/tracing/kprobe_events
	echo 1 >/sys/kernel/debug/tracing/events/kprobes/flipfence_vkms_compose/enable
}

# bench_reload_flipkms OUTPUTS [PARAM=VALUE...]: flipkms again with OUTPUTS
# outputs (the highrate workload's three CRTCs) and any other parameters
# (preferred_mode=1024x768: vkms's preferred mode, for Weston); its card's
# minor may change.
bench_reload_flipkms() {
	local outputs=$1
	shift
	modprobe -r -d "$FLIPFENCE_MODROOT" flipkms &&
		modprobe -d "$FLIPFENCE_MODROOT" flipkms outputs="$outputs" "$@"
}
