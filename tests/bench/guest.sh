#!/bin/bash
# SPDX-License-Identifier: MIT
# make bench's guest half, on the bench kernel (lean + mainline sw_sync) with
# syncfw and flipkms loaded; vkms is loaded next to them. Every metric is
# measured in BENCH_ROUNDS rounds (default 5), flipfence then mainline in
# each (ABAB...), after one warm-up round of each that is thrown away; each
# round writes one JSON file per side, NAME-SIDE-ROUND.json, into
# $FLIPFENCE_RESULTS, with system.json beside them (scripts/bench reads
# them all).
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FLIPFENCE_RESULTS:?run through scripts/bench}
bin=$top/build/tests/bench
fliplat=$top/build/fliplat/fliplat
presentlat=$top/build/presentlat/presentlat
rounds=${BENCH_ROUNDS:-5}
flips=${BENCH_FLIPS:-300}

# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
# shellcheck source=tests/bench/lib.sh
. "$top/tests/bench/lib.sh"

say() { echo "bench: $*" >&2; }

# Like for like: both sw_syncs through debugfs's proxy.
syncfw_node=/sys/kernel/debug/syncfw/sw_sync
mainline_node=/sys/kernel/debug/sync/sw_sync
[ -e $mainline_node ] || { say "no mainline sw_sync: not the bench kernel?"; exit 1; }
[ -e $syncfw_node ] || { say "no $syncfw_node: syncfw too old?"; exit 1; }

bench_load_vkms
fk=$(drm_minor_of flipkms)
vk=$(drm_minor_of vkms)

load() { cut -d' ' -f1-3 /proc/loadavg; }
jq -n --arg cpus "$(nproc)" --arg kernel "$(uname -r)" --arg flavour "$FLIPFENCE_KERNEL" \
	--arg load "$(load)" --argjson rounds "$rounds" \
	'{ guest_cpus: ($cpus | tonumber), kernel: $kernel, flavour: $flavour, rounds: $rounds,
	   guest_load_at_start: $load }' >"$out/system.json"

# one NAME SIDE ROUND: the measurement NAME of SIDE into its round's file
# (round 0: the warm-up, thrown away).
one() {
	local name=$1 side=$2 round=$3 card=$fk file crtcs
	[ "$side" = mainline ] && card=$vk
	file=$out/$name-$side-$round.json
	case $name in
	sync)
		node=$syncfw_node
		[ "$side" = mainline ] && node=$mainline_node
		"$bin/sync-bench" -n 10000 $node >"$file" ;;
	fliplat)
		"$fliplat" --no-progress -q --device "/dev/dri/card$card" --mode 1024x768@60 \
			--flips "$flips" --warmup 20 --json "$file" ;;
	compose)
		# kms_open() says which card it took on stdout, as a comment: keep the JSON.
		"$bin/compose-bench" -t 3 "$([ "$side" = mainline ] && echo vkms || echo flipkms)" |
			grep "^{" >"$file" ;;
	highrate)
		# flipkms with three outputs, all flipping; vkms has one CRTC.
		crtcs=()
		[ "$side" = mainline ] || crtcs=(--crtcs all)
		"$fliplat" --no-progress -q --device "/dev/dri/card$card" --mode 1024x768 -r 240 \
			"${crtcs[@]}" --flips 2000 --warmup 20 --json "$file" ;;
	presentlat)
		"$top/tests/compositor/session.sh" -d "$([ "$side" = mainline ] && echo vkms || echo flipkms)" \
			weston -- "$presentlat" -n 300 -w 10 -q --json "$file" >&2 ;;
	kmscube)
		kmscube_run "$card" "$side" >"$file" ;;
	esac
	[ "$round" -gt 0 ] || rm -f "$file"
}

# kmscube quits on input: give it a silent pipe. No "Rendered" line:
# kmscube failed (vkms 6.1 cannot run it); its last words are the error,
# and the run goes on.
mkfifo /tmp/kmscube-stdin
sleep 3600 >/tmp/kmscube-stdin &
quiet=$!
kmscube_run() {
	local said
	said=$(timeout 300 kmscube -D "/dev/dri/card$1" -v 1024x768 -c 30 </tmp/kmscube-stdin 2>&1) || true
	echo "$said" | awk -v side="$2" '
			/extensions/ { next }
			/^Rendered/ { f = $2; s = $5; fps = $7; gsub(/[()]/, "", fps) }
			{ last = $0; gsub(/["\\]/, "", last) }
			END {
				if (fps != "")
					printf "{ \"side\": \"%s\", \"frames\": %d, \"seconds\": %s, \"fps\": %s }\n", side, f, s, fps
				else
					printf "{ \"side\": \"%s\", \"fps\": null, \"error\": \"%s\" }\n", side, last
			}'
}

for name in sync fliplat compose presentlat kmscube highrate; do
	say "$name: a warm-up round, then $rounds rounds of flipfence and mainline in turn"
	if [ $name = highrate ]; then
		bench_reload_flipkms 3
		fk=$(drm_minor_of flipkms)
	fi
	for round in $(seq 0 "$rounds"); do
		one $name flipfence "$round"
		one $name mainline "$round"
	done
done
kill $quiet
jq --arg load "$(load)" '. + { guest_load_at_end: $load }' "$out/system.json" >"$out/system.json.new"
mv "$out/system.json.new" "$out/system.json"
say done
