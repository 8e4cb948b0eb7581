#!/bin/bash
# SPDX-License-Identifier: MIT
# make bench's guest half, on the bench kernel (lean + mainline sw_sync) with
# syncfw and flipkms loaded; vkms is loaded next to them. Every metric is
# measured in BENCH_ROUNDS rounds (default 7) after one warm-up round of
# each side that is thrown away; odd rounds run flipfence first, even ones
# mainline first (ABBA...), so that neither side always runs on a machine
# the other has just warmed or loaded. Each round writes one JSON file per
# side, NAME-SIDE-ROUND.json, into $FLIPFENCE_RESULTS, with system.json
# beside them (scripts/bench-report reads them all). A round that fails
# writes { "failed": true, "error": ... } instead (what the tool wrote, if
# anything, is kept as NAME-SIDE-ROUND.json.failed) and the run goes on.
#
# scripts/vm gives the guest none of the caller's environment:
# scripts/bench runs this as `env BENCH_ROUNDS=N BENCH_FLIPS=N guest.sh`.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FLIPFENCE_RESULTS:?run through scripts/bench}
bin=$top/build/tests/bench
fliplat=$top/build/fliplat/fliplat
presentlat=$top/build/presentlat/presentlat
rounds=${BENCH_ROUNDS:-7}
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
	--arg load "$(load)" --argjson rounds "$rounds" --argjson flips "$flips" \
	'{ guest_cpus: ($cpus | tonumber), kernel: $kernel, flavour: $flavour, rounds: $rounds,
	   flips: $flips, order: "flipfence first in odd rounds, mainline first in even ones",
	   guest_load_at_start: $load }' >"$out/system.json"

# one NAME SIDE ROUND: the measurement NAME of SIDE into its round's file
# (round 0: the warm-up, thrown away). Always returns 0: a measurement that
# fails leaves a failed round's file. Called as `one ... || true`, so that
# set -e does not end the run inside it.
one() {
	local name=$1 side=$2 round=$3 card=$fk file crtcs node rc opts
	[ "$side" = mainline ] && card=$vk
	file=$out/$name-$side-$round.json
	rm -f "$file" "$file.failed"
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
	compose-rot90)
		# The overlay turned 90 degrees: vkms 6.1 has no ROTATION, so
		# flipkms only, beside its own unturned compose row.
		"$bin/compose-bench" -r -t 3 flipkms | grep "^{" >"$file" ;;
	control)
		# A/A: flipkms on both "sides", to show what noise alone reads.
		"$bin/compose-bench" -t 3 flipkms | grep "^{" >"$file" ;;
	compose-nv12 | compose-nv12-color)
		# An NV12 overlay, and the CRTC's DEGAMMA_LUT, CTM and GAMMA_LUT
		# too: vkms (6.1 and 6.12) composes no NV12 and has no CTM, so
		# flipkms only, beside its own ARGB8888 compose row.
		opts=(-n)
		[ "$name" = compose-nv12 ] || opts+=(-c)
		"$bin/compose-bench" -t 3 "${opts[@]}" flipkms | grep "^{" >"$file" ;;
	highrate | highrate3)
		# highrate: one CRTC on each side; highrate3: flipkms's three
		# outputs all flipping, flipkms only.
		crtcs=()
		[ "$name" = highrate ] || crtcs=(--crtcs all)
		"$fliplat" --no-progress -q --device "/dev/dri/card$card" --mode 1024x768 -r 240 \
			"${crtcs[@]}" --flips 2000 --warmup 20 --json "$file" ;;
	presentlat)
		"$top/tests/compositor/session.sh" -d "$([ "$side" = mainline ] && echo vkms || echo flipkms)" \
			weston -- "$presentlat" -n 300 -w 10 -q --json "$file" >&2 ;;
	kmscube)
		kmscube_run "$card" "$side" >"$file" ;;
	esac
	rc=$?
	if [ "$rc" != 0 ]; then
		say "$name $side round $round failed: exit $rc"
		[ -s "$file" ] && mv "$file" "$file.failed"
		jq -n --arg side "$side" --argjson round "$round" --arg error "exit $rc" \
			'{ failed: true, side: $side, round: $round, error: $error }' >"$file"
	fi
	[ "$round" -gt 0 ] || rm -f "$file" "$file.failed"
	return 0
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

# measure NAME SIDES: the warm-up, then BENCH_ROUNDS rounds of SIDES (in
# turn: flipfence first in odd rounds, mainline first in even ones).
measure() {
	local name=$1 sides=$2 round side sides_now
	say "$name: a warm-up round, then $rounds rounds, flipfence and mainline first in turn"
	for round in $(seq 0 "$rounds"); do
		if [ "$sides" = both ]; then
			if [ $((round % 2)) = 1 ]; then sides_now="flipfence mainline"
			else sides_now="mainline flipfence"; fi
		else
			sides_now=$sides
		fi
		for side in $sides_now; do
			one "$name" "$side" "$round" || true
		done
	done
}

for name in sync fliplat compose control; do
	measure $name both
done
measure compose-rot90 flipfence
measure compose-nv12 flipfence
measure compose-nv12-color flipfence
# Like for like: Weston takes the preferred mode, 1024x768 on vkms 6.1
# (flipkms's default is 1920x1080). kmscube and highrate set their mode.
bench_reload_flipkms 1 preferred_mode=1024x768
fk=$(drm_minor_of flipkms)
for name in presentlat kmscube highrate; do
	measure $name both
done
# flipkms on three CRTCs: no mainline equivalent (vkms has one), so it
# is reported apart, flipkms only.
bench_reload_flipkms 3
fk=$(drm_minor_of flipkms)
measure highrate3 flipfence
kill $quiet
jq --arg load "$(load)" '. + { guest_load_at_end: $load }' "$out/system.json" >"$out/system.json.new"
mv "$out/system.json.new" "$out/system.json"
say "done"
