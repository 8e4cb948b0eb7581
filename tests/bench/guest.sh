#!/bin/bash
# SPDX-License-Identifier: MIT
# make bench's guest half, on the bench kernel (lean + mainline sw_sync) with
# syncfw and flipkms loaded; vkms is loaded next to them. Writes one JSON
# file per measurement into $FLIPFENCE_RESULTS (scripts/bench reads them).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FLIPFENCE_RESULTS:?run through scripts/bench}
bin=$top/build/tests/bench
fliplat=$top/build/fliplat/fliplat
flips=${BENCH_FLIPS:-600}

# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"

say() { echo "bench: $*" >&2; }

# Mainline's sw_sync must be there, or the comparison is meaningless.
[ -e /sys/kernel/debug/sync/sw_sync ] || { say "no mainline sw_sync: not the bench kernel?"; exit 1; }

say "sw_sync: syncfw (/dev/sw_sync) vs mainline (debugfs), interleaved twice"
for round in 1 2; do
	"$bin/sync-bench" -n 20000 /dev/sw_sync >"$out/sync-syncfw-$round.json"
	"$bin/sync-bench" -n 20000 /sys/kernel/debug/sync/sw_sync >"$out/sync-mainline-$round.json"
done

modprobe -d "$FLIPFENCE_MODROOT" vkms enable_overlay=1 enable_cursor=1
fk=$(drm_minor_of flipkms)
vk=$(drm_minor_of vkms)

for drv in flipkms vkms; do
	card=$fk
	[ $drv = vkms ] && card=$vk
	say "fliplat on $drv: $flips flips at 1024x768@60"
	"$fliplat" --no-progress -q --device "/dev/dri/card$card" --mode 1024x768@60 \
		--flips "$flips" --warmup 20 --json "$out/fliplat-$drv.json" \
		--plot "$out/fliplat-$drv.svg"
	say "composer on $drv: 1920x1080@240, primary + ARGB overlay + cursor"
	# kms_open() says which card it took on stdout, as a comment: keep the JSON.
	"$bin/compose-bench" -t 5 $drv | grep "^{" >"$out/compose-$drv.json"
done

for drv in flipkms vkms; do
	say "presentlat under Weston on $drv: 300 frames, one per frame callback"
	"$top/tests/compositor/session.sh" -d $drv weston -- "$top/build/presentlat/presentlat" \
		-n 300 -w 10 -q --json "$out/presentlat-$drv.json" --plot "$out/presentlat-$drv.svg" >&2
done

# kmscube quits on input: give it a silent pipe.
mkfifo /tmp/kmscube-stdin
sleep 600 >/tmp/kmscube-stdin &
quiet=$!
for drv in flipkms vkms; do
	card=$fk
	[ $drv = vkms ] && card=$vk
	say "kmscube on $drv: 40 frames at 1024x768 (llvmpipe)"
	# No "Rendered" line: kmscube failed; keep its last words as the error.
	timeout 300 kmscube -D "/dev/dri/card$card" -v 1024x768 -c 40 </tmp/kmscube-stdin 2>&1 |
		grep -v extensions | awk -v drv=$drv '
			/^Rendered/ { f = $2; s = $5; fps = $7; gsub(/[()]/, "", fps) }
			{ last = $0; gsub(/["\\]/, "", last) }
			END {
				if (fps != "")
					printf "{ \"driver\": \"%s\", \"frames\": %d, \"seconds\": %s, \"fps\": %s }\n", drv, f, s, fps
				else
					printf "{ \"driver\": \"%s\", \"fps\": null, \"error\": \"%s\" }\n", drv, last
			}' >"$out/kmscube-$drv.json"
done
kill $quiet
say done
