# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# The result lines of every shell test in tests/ (the C tests have
# tests/lib/check.c): one line per check, which tests/runner counts,
#
#	ok - NAME
#	not ok - NAME: why
#	skip - NAME: reason
#	# comment
#
# and `finish` as the script's last command: status 1 if any check failed.
# Sourced as . "$(dirname "$0")/../lib.sh".

failures=0

# result_line LINE: prints a result line and, under tests/runner, appends it
# to $FLIPFENCE_RESULT_LOG too: the runner counts an "ok" or "skip" line
# only if it finds it there, so that a tool's stray "ok - " line is never a
# pass (tests/lib/result.h is the C side).
result_line() {
	echo "$1"
	[ -z "${FLIPFENCE_RESULT_LOG:-}" ] || echo "$1" >>"$FLIPFENCE_RESULT_LOG"
}
pass() { result_line "ok - $1"; }
fail() { result_line "not ok - $1: $2"; failures=$((failures + 1)); }
skip() { result_line "skip - $1: $2"; }

# check NAME STATUS MESSAGE: passes if STATUS (a command's exit status) is 0.
check() {
	if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

# check_eq NAME WANT GOT
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# drm_minor_of DRIVER: the minor N of DRM driver DRIVER's card, from
# /sys/kernel/debug/dri/N/name (the first one, if it has several).
drm_minor_of() {
	local d
	for d in /sys/kernel/debug/dri/[0-9]*; do
		[ "$(awk '{ print $1; exit }' "$d/name" 2>/dev/null)" = "$1" ] &&
			{ echo "${d##*/}"; return 0; }
	done
	return 1
}

# card_of DRIVER: the /dev/dri/cardN of DRIVER.
card_of() {
	local minor
	minor=$(drm_minor_of "$1") && echo "/dev/dri/card$minor"
}

# flipkms_flips CTL: the flips CRTC 0 of the flipkms whose crtc-0 debugfs
# directory is CTL has latched, from its flipkms_status.
flipkms_flips() {
	awk '/flips [0-9]+/ { for (i = 1; i < NF; i++) if ($i == "flips") print $(i + 1) + 0; exit }' \
		"$1/../flipkms_status"
}

# flipkms_flips_more CTL BASE N: waits up to 10 s for N flips more than BASE.
flipkms_flips_more() {
	local i
	for i in $(seq 100); do
		[ $(($(flipkms_flips "$1") - $2)) -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# flipkms_device NAME OUTPUTS [DYNAMIC...]: builds configfs device
# flipkms/NAME with OUTPUTS outputs (output i: crtcs/c<i>, a primary plane
# planes/p<i>, encoders/e<i>, connectors/n<i>, as Documentation/flipkms.rst's
# cookbook) and enables it; prints its card, cardN. The connectors of the
# outputs numbered DYNAMIC are dynamic and not enabled: connectors/n<i>/enabled
# adds them later.
flipkms_device() {
	local name=$1 dir=/sys/kernel/config/flipkms/$1 n=$2 i
	mkdir "$dir" || return 1
	for ((i = 0; i < n; i++)); do
		(cd "$dir" && mkdir crtcs/c$i encoders/e$i connectors/n$i planes/p$i &&
			echo 1 >planes/p$i/type &&
			ln -s crtcs/c$i planes/p$i/possible_crtcs &&
			ln -s crtcs/c$i encoders/e$i/possible_crtcs &&
			ln -s encoders/e$i connectors/n$i/possible_encoders) || return 1
	done
	shift 2
	for i in "$@"; do
		echo 1 >"$dir/connectors/n$i/dynamic" && echo 0 >"$dir/connectors/n$i/enabled" ||
			return 1
	done
	echo 1 >"$dir/enabled" || return 1
	flipkms_device_card "$name"
}

# flipkms_device_card NAME: the card of enabled configfs device NAME.
flipkms_device_card() {
	local c
	for c in "/sys/devices/platform/flipkms-$1/drm/"card*; do
		[ -e "$c" ] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

# flipkms_device_remove NAME: disables configfs device NAME and removes it,
# links first, then objects, then the device (flipkms_device's layout).
flipkms_device_remove() {
	local dir=/sys/kernel/config/flipkms/$1
	[ -d "$dir" ] || return 0
	echo 0 >"$dir/enabled"
	rm -f "$dir"/planes/*/possible_crtcs/* "$dir"/encoders/*/possible_crtcs/* \
		"$dir"/connectors/*/possible_encoders/*
	rmdir "$dir"/planes/* "$dir"/crtcs/* "$dir"/encoders/* "$dir"/connectors/* 2>/dev/null
	rmdir "$dir"
}

# start_udevd LOG: Debian's udevd for the compositors' device monitors (they
# listen on udev's netlink group, which only udevd sends on), in the
# foreground as a child of the calling script, so that the runner's timeout
# kills it with the test; its pid in $udevd_pid for the caller's trap to
# stop with stop_udevd. Returns once it answers and has seen the DRM devices.
start_udevd() {
	/lib/systemd/systemd-udevd --resolve-names=never >"$1" 2>&1 &
	udevd_pid=$!
	for _ in $(seq 50); do
		udevadm control --ping 2>/dev/null && break
		sleep 0.1
	done
	udevadm trigger --action=add --subsystem-match=drm && udevadm settle -t 10
}

# stop_udevd: stops start_udevd's udevd, if it was started, and waits for it.
stop_udevd() {
	kill "${udevd_pid:-}" 2>/dev/null
	wait "${udevd_pid:-}" 2>/dev/null
}

finish() {
	[ "$failures" -eq 0 ]
}
