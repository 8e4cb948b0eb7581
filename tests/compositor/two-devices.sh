#!/bin/bash
# SPDX-License-Identifier: MIT
# Two GPUs, and one taken away while a compositor drives it: flipkms's
# default device (card A, the module parameters') and configfs device
# flipkms/gpu2 with one output (card B, tests/lib.sh's flipkms_device),
# with Debian's udevd in the guest for the compositors' device monitors.
#
# Weston 14 drives B for output only (session.sh -c A:B gives it
# --additional-devices=B):
#   weston-outputs-on-both  wayland-info lists the two connectors' outputs
#   presents-on-second      presentlat -o B's output -n 30: 30 flips or more
#                           on B's CRTC
#   weston-sees-unplug      enabled=0 on gpu2 while presentlat presents on
#                           B's output (20 frames in): Weston's commits on B
#                           fail with ENODEV ("No such device" in its log)
#                           within 10 s; Weston 14 keeps the output listed
#   weston-survives-unplug  it runs on and exits 0 on SIGTERM
#   enables-again           enabled=1 once Weston is gone: a card again
# (Noticed, not asserted: in this two-card session presentlat on A's output
# got 2 flips and no feedback within 3 s, lean 6.1; alone, Weston presents
# on A in present.sh.)
# sway 1.7 with WLR_DRM_DEVICES=A:B (gpu2 enabled again):
#   sway-drives-first-only  get_outputs lists A's output alone, and sway's log
#                           says why: wlroots 0.15 copies a second GPU's
#                           frames through a renderer that imports dma-bufs,
#                           which the pixman renderer does not ("Failed to
#                           query renderer texture formats"). GLES2 on
#                           llvmpipe (WLR_RENDERER_ALLOW_SOFTWARE=1) crashes
#                           here: in llvmpipe's AVX2 gathers under QEMU 7.2's
#                           TCG (gone with avx2=off), then, on two cards, in
#                           Mesa 22.3's kms_swrast, which maps the first card's
#                           imported frame with MODE_MAP_DUMB, and the DRM
#                           core refuses that for any imported object (EINVAL,
#                           drm_gem_dumb_map_offset(); vkms alike)
# Then:
#   module-unloads          gpu2 removed, rmmod flipkms succeeds: nothing
#                           holds the module once the clients are gone
# (fliplat under an unplug: tests/fliplat/errors.sh.)
#
# usage: tests/kms/with-module.sh flipkms -- tests/compositor/two-devices.sh
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
udevd=/lib/systemd/systemd-udevd
command -v weston >/dev/null && command -v sway >/dev/null && [ -x $udevd ] ||
	{ skip weston-outputs-on-both "weston, sway or udev is not installed (scripts/setup)"; exit 0; }
tmp=$(mktemp -d)
chmod 0755 "$tmp"
gpu2=/sys/kernel/config/flipkms/gpu2
cleanup() {
	stop_udevd
	flipkms_device_remove gpu2
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
a=$(card_of flipkms) && a=${a#/dev/dri/} && b=$(flipkms_device gpu2 1) ||
	{ echo "not ok - setup: no default flipkms card or configfs device gpu2"; exit 1; }
# The output a card's connector makes is named as the connector (cardN-NAME
# in sysfs; the writeback connector makes none).
name_of() { local c; c=$(cd "/sys/class/drm" && echo "$1"-Virtual-*); echo "${c#"$1"-}"; }
export out_a out_b ctl_a ctl_b gpu2
out_a=$(name_of "$a") out_b=$(name_of "$b")
ctl_a=/sys/kernel/debug/dri/${a#card}/crtc-0 ctl_b=/sys/kernel/debug/dri/${b#card}/crtc-0
start_udevd "$tmp/udevd.log"

cat >"$tmp/weston-client.sh" <<'CLIENT'
# shellcheck source=tests/lib.sh
. tests/lib.sh
presentlat=build/presentlat/presentlat
names() { wayland-info 2>/dev/null | awk '/^interface: / { o = /wl_output/ } o && $1 == "name:" { print $2 }' | sort | paste -sd, -; }
echo "outputs: $(names)"
base=$(flipkms_flips "$ctl_b")
$presentlat -o "$out_b" -n 30 -w 0 -q && echo "presented on $out_b: $(($(flipkms_flips "$ctl_b") - base)) flips"
base=$(flipkms_flips "$ctl_b")
$presentlat -o "$out_b" -t 60 -w 0 -q >/dev/null 2>&1 &
p=$!
flipkms_flips_more "$ctl_b" "$base" 20
echo 0 >"$gpu2/enabled"
for _ in $(seq 100); do grep -q 'No such device' "$FLIPFENCE_SESSION_LOG" && break; sleep 0.1; done
echo "unplugged: $(grep -c 'No such device' "$FLIPFENCE_SESSION_LOG") ENODEV lines, outputs $(names)"
kill -INT $p
wait $p
true
CLIENT
export FLIPFENCE_SESSION_LOG=$tmp/weston.log
"$here/session.sh" -c "$a:$b" weston -- bash "$tmp/weston-client.sh" >"$tmp/out" 2>&1
rc=$?
grep -E '^# session|^(outputs|presented|unplugged)[: ]' "$tmp/out" | sed 's/^\([^#]\)/# \1/'
grep -iE "additional|device|No such" "$tmp/weston.log" | head -6 | sed 's/^/# weston: /'
thirty='([3-9][0-9]|[0-9]{3,}) flips'
check_eq weston-outputs-on-both "outputs: $(printf '%s\n' "$out_a" "$out_b" | sort | paste -sd, -)" \
	"$(grep '^outputs:' "$tmp/out")"
check presents-on-second "$(grep -qE "^presented on $out_b: $thirty" "$tmp/out"; echo $?)" \
	"expected 30 flips on $b's CRTC from presentlat -o $out_b: $(grep -E '^presented on|^presentlat:' "$tmp/out" | tr '\n' ' ')"
check weston-sees-unplug "$(grep -qE '^unplugged: [1-9][0-9]* ENODEV' "$tmp/out"; echo $?)" \
	"expected Weston's log to say 'No such device' within 10 s of the unplug: $(grep '^unplugged' "$tmp/out")"
check weston-survives-unplug "$(grep -q '^# session: weston exited 0 after SIGTERM' "$tmp/out"; echo $?)" \
	"expected weston to run on and exit with status 0 on SIGTERM, got session status $rc: $(grep -E 'after SIGTERM|before it was stopped' "$tmp/out" | tr '\n' ' ')"

echo 1 >"$gpu2/enabled"
b=$(flipkms_device_card gpu2)
check enables-again "$?" "no card for gpu2 after enabled=1"
cat >"$tmp/sway-client.sh" <<'CLIENT'
swaymsg -s "$(echo "$XDG_RUNTIME_DIR"/sway-ipc.*.sock)" -p -t get_outputs
CLIENT
FLIPFENCE_SESSION_LOG=$tmp/sway.log "$here/session.sh" -c "$a:${b:-$a}" sway -- \
	bash "$tmp/sway-client.sh" >"$tmp/sway.out" 2>&1
sed 's/^/# /' "$tmp/sway.out"
grep -E 'backend' "$tmp/sway.log" | sed 's/^/# sway: /'
check sway-drives-first-only "$([ "$(grep -c '^Output ' "$tmp/sway.out")" = 1 ] &&
	grep -q "^Output $out_a " "$tmp/sway.out" &&
	grep -q 'Failed to query renderer texture formats' "$tmp/sway.log"; echo $?)" \
	"expected get_outputs to list $out_a alone and the log to say the second GPU's renderer has no texture formats: $(grep '^Output ' "$tmp/sway.out" | tr '\n' ' ')$(grep -c 'texture formats' "$tmp/sway.log") such lines"

flipkms_device_remove gpu2
modprobe -d "$FLIPFENCE_MODROOT" -r flipkms 2>"$tmp/rmmod.err"
check module-unloads "$?" "rmmod flipkms failed: $(cat "$tmp/rmmod.err") (refcnt $(cat /sys/module/flipkms/refcnt 2>/dev/null))"
finish
