#!/bin/bash
# SPDX-License-Identifier: MIT
# Mainline vkms as the anchor: flipkms's KMS tests run on vkms (loaded once,
# with its overlay plane, by the manifest's with-module.sh) one after the
# other. A load and unload of vkms and flipkms around each would cost about
# 1.5 s of a lean TCG guest, twice what most of these tests take. Each keeps
# its own timeout, and its results the names they would have alone:
# kms/vkms/TEST/CHECK.
#
# usage: tests/kms/vkms-anchors.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/tests/kms
log=${FLIPFENCE_RESULT_LOG:-}
own=$(mktemp)
trap 'rm -f "$own"' EXIT
failed=0

# prefixed NAME: result lines of stdin named NAME/CHECK, the rest as is.
prefixed() {
	sed -u -E "s#^(ok|not ok|skip) - #\\1 - $1/#"
}

# anchor NAME TIMEOUT CMD...: CMD's results as NAME's, and a failure of its
# own if it exited non-zero without reporting one.
anchor() {
	local name=$1 limit=$2 rc up
	shift 2
	: >"$own"
	read -r up _ </proc/uptime
	FLIPFENCE_RESULT_LOG=$own FLIPFENCE_DEADLINE=$((${up%%.*} + limit)) \
		timeout -k 5 "$limit" "$@" </dev/null 2>&1 | prefixed "$name"
	rc=${PIPESTATUS[0]}
	[ -z "$log" ] || prefixed "$name" <"$own" >>"$log"
	[ "$rc" -eq 0 ] && return
	failed=1
	grep -q '^not ok - ' "$own" && return
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "not ok - $name: timed out after $limit s"
	else
		echo "not ok - $name: exited $rc"
	fi
}

anchor modeset 60 "$bin/modeset" vkms
anchor planes 60 "$bin/planes" vkms
anchor flip-fences 180 "$bin/flip-fences" -r 240 vkms
anchor vblank 60 "$bin/vblank" -r vkms
anchor legacy-flip 60 "$bin/legacy-flip" vkms
anchor async-flip 60 "$bin/async-flip" vkms
anchor in-fence 60 "$bin/in-fence" vkms
anchor bad-input 60 "$bin/bad-input" vkms
anchor modetest 90 "$top/tests/kms/modetest.sh" vkms
exit $failed
