#!/bin/bash
# SPDX-License-Identifier: MIT
# modetest: libdrm's own test client (Debian libdrm-tests) drives the driver.
#   modetest -M DRIVER -c   lists a connected connector with modes
#   modetest -M DRIVER -p   lists CRTCs and planes
#   modetest -M DRIVER -s CONNECTOR@CRTC:MODE   sets a mode and exits cleanly
#                           (stdin is /dev/null, so it does not wait for a key)
#   modetest -M flipkms -s CONNECTOR@CRTC:640x480 -P PLANE@CRTC:96x64+40+40@FORMAT
#                           for every format the overlay plane lists that
#                           modetest can draw: the plane takes it (the DRM
#                           state shows the format), and the frame on screen
#                           (frame.ppm, whose pixels are the CRC's:
#                           tests/kms/formats) differs from the frame without
#                           the plane inside the plane's rectangle only, and
#                           is stable; the formats modetest cannot draw are
#                           named below, and checked to be refused by it
#
# usage: tests/kms/modetest.sh DRIVER [formats]   (formats: the -P part too)
set -u
driver=${1:?usage: $0 DRIVER [formats]}
part=${2:-}
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

if ! command -v modetest >/dev/null; then
	skip modetest "modetest is not installed (Debian libdrm-tests)"
	exit 0
fi

mt() {
	timeout -k 5 20 modetest -M "$driver" "$@" </dev/null 2>&1
}

# --- -c: a connected connector ------------------------------------------------
out=$(mt -c)
rc=$?
# Connector lines: "id encoder status name size modes encoders".
conn_line=$(printf '%s\n' "$out" | awk '$3 == "connected" && $1 ~ /^[0-9]+$/ { print; exit }')
connector=$(printf '%s\n' "$conn_line" | awk '{ print $1 }')
if [ $rc -eq 0 ] && [ -n "$connector" ]; then
	pass modetest-lists-connected-connector
else
	fail modetest-lists-connected-connector \
		"expected exit 0 and a connected connector, got exit $rc and '$(printf '%s' "$out" | head -3 | tr '\n' ' ')'"
fi
# The connector's first mode line after "modes:": "#0 NAME REFRESH ...", preferred first if flagged.
modes=$(printf '%s\n' "$out" | awk -v id="$connector" '
	$1 == id && $3 == "connected" { inside = 1; next }
	inside && /^[0-9]+\t/ { exit }
	inside && $1 ~ /^#[0-9]+$/ { print }')
mode=$(printf '%s\n' "$modes" | awk '/preferred/ { print $2; exit }')
[ -n "$mode" ] || mode=$(printf '%s\n' "$modes" | awk 'NR == 1 { print $2 }')
nmodes=$(printf '%s\n' "$modes" | grep -c '^')
[ -n "$modes" ] || nmodes=0
if [ "$nmodes" -gt 0 ] && [ -n "$mode" ]; then
	pass modetest-connector-lists-modes
else
	fail modetest-connector-lists-modes "expected mode lines for connector '$connector', got none"
fi
echo "# connector $connector ($nmodes modes, using $mode)"

# --- -p: CRTCs and planes -----------------------------------------------------
out=$(mt -p)
rc=$?
# Object lines start in column 0 with the id; their properties are indented.
crtcs=$(printf '%s\n' "$out" | awk '/^CRTCs:/ { s = 1; next } /^[A-Z][a-z]+:/ { s = 0 } s && /^[0-9]+\t/ { print $1 }')
planes=$(printf '%s\n' "$out" | awk '/^Planes:/ { s = 1; next } /^[A-Z][a-z]+:/ { s = 0 } s && /^[0-9]+\t/ { print $1 }')
crtc=$(printf '%s\n' "$crtcs" | head -1)
if [ $rc -eq 0 ] && [ -n "$crtc" ]; then
	pass modetest-lists-crtcs
else
	fail modetest-lists-crtcs "expected exit 0 and a CRTC, got exit $rc and none"
fi
if [ $rc -eq 0 ] && [ -n "$planes" ]; then
	pass modetest-lists-planes
else
	fail modetest-lists-planes "expected exit 0 and a plane, got exit $rc and none"
fi
echo "# CRTCs: $(printf "%s" "$crtcs" | tr "\n" " "), planes: $(printf "%s" "$planes" | tr "\n" " ")"

# --- -s: set a mode and exit --------------------------------------------------
if [ -z "$connector" ] || [ -z "$crtc" ] || [ -z "$mode" ]; then
	fail modetest-sets-mode "expected a connector, CRTC and mode to set, got '$connector' '$crtc' '$mode'"
else
	out=$(mt -s "$connector@$crtc:$mode")
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^setting mode $mode"; then
		pass modetest-sets-mode
	else
		fail modetest-sets-mode \
			"expected exit 0 after 'setting mode $mode', got exit $rc and '$(printf '%s' "$out" | tail -3 | tr '\n' ' ')'"
	fi
	# A CRTC without a gamma LUT (vkms in 6.1) makes modetest say "failed
	# to set gamma" and carry on: no failure of the modeset. flipkms has
	# one, so there it counts.
	printf '%s\n' "$out" | grep -i 'gamma' | sed 's/^/# /'
	errors=$(printf '%s\n' "$out" | grep -iE 'failed|error|invalid')
	[ "$driver" = flipkms ] || errors=$(printf '%s\n' "$errors" | grep -vi 'gamma')
	if [ -n "$errors" ]; then
		fail modetest-sets-mode-without-errors \
			"expected no failure messages, got '$(printf '%s\n' "$errors" | head -2 | tr '\n' ' ')'"
	else
		pass modetest-sets-mode-without-errors
	fi
fi

# --- -P: every format of the overlay that modetest can draw (flipkms) ---------
# modetest in Debian 12 (libdrm 2.4.114, tests/util/format.c) cannot draw
# these formats flipkms offers: 16 bits per channel, R1-R8, NV24/NV42, the
# 4:2:2 and 4:4:4 three-plane ones and P010-P016. It says "unknown format".
cannot_draw="XR48 AR48 XB48 AB48 R1 R2 R4 R8 NV24 NV42 YU16 YV16 YU24 YV24 P010 P012 P016"
if [ "$part" = formats ] && [ -n "$connector" ] && [ -n "$crtc" ]; then
	out=$(mt -p)
	# The overlay: the plane whose "type" property's value is 0, with its formats.
	# (No process substitution: the guest has no /dev/fd.)
	# shellcheck disable=SC2046
	set -- $(printf '%s\n' "$out" | awk '
		/^Planes:/ { s = 1; next } /^[A-Z][a-z]+:/ { s = 0 }
		s && /^[0-9]+\t/ { id = $1; type = "" }
		s && $1 == "formats:" { f[id] = $0; sub(/^ *formats: */, "", f[id]) }
		s && $2 == "type:" { type = id }
		s && type != "" && $1 == "value:" { if ($2 == 0 && !found) { found = id } type = "" }
		END { if (found) print found, f[found] }')
	overlay=${1:-}
	[ $# = 0 ] || shift
	formats=$*
	minor=$(drm_minor_of "$driver")
	dri=/sys/kernel/debug/dri/$minor
	tmp=$(mktemp -d)
	# hold ARGS...: modetest -s CONNECTOR@CRTC:640x480 ARGS in the
	# background, on screen until release closes its stdin (a FIFO: the
	# guest has no /dev/fd).
	hold() {
		rm -f "$tmp/stdin"
		mkfifo "$tmp/stdin"
		timeout -k 5 30 modetest -M "$driver" -s "$connector@$crtc:640x480" "$@" \
			<"$tmp/stdin" >"$tmp/held.log" 2>&1 &
		held=$!
		exec 7>"$tmp/stdin"
	}
	release() {	# modetest's exit status
		exec 7>&-
		wait "$held"
	}
	# on_screen [FORMAT]: waits up to 10 s for the DRM state to show the
	# 640x480 mode and, with FORMAT, the overlay holding a framebuffer of
	# it (cheap: frame.ppm composes, at 1920x1080 while fbdev's frame is up).
	on_screen() {
		local _
		for _ in $(seq 200); do
			awk -v p="plane[$overlay]" -v f="${1:-}" '
				/^[a-z]+\[/ { s = index($0, p) == 1 }
				/^\tmode: "640x480"/ { m = 1 }
				s && $1 == "format=" f { ok = 1 }
				END { exit !(m && (f == "" || ok)) }' "$dri/state" && return 0
			sleep 0.05
		done
		return 1
	}
	# ppm FILE: frame.ppm of CRTC 0 into FILE once it is 640x480; 1 if it never is.
	ppm() {
		local _
		for _ in $(seq 50); do
			cat "$dri/crtc-0/frame.ppm" >"$1" 2>/dev/null &&
				[ "$(head -c 11 "$1")" = "$(printf 'P6\n640 480')" ] && return 0
			sleep 0.1
		done
		return 1
	}
	# The frame without the plane: modetest's pattern on the primary.
	hold
	on_screen && ppm "$tmp/base.ppm"
	base=$?
	release
	if [ -z "$overlay" ] || [ $base != 0 ]; then
		fail modetest-formats-setup "expected an overlay plane and a 640x480 frame, got plane '$overlay'"
	else
		# Where modetest puts the plane.
		x0=40 y0=40 w=96 h=64
		shown="" refused="" hidden=""
		for f in $formats; do
			case " $cannot_draw " in
			*" $f "*)
				# modetest must still refuse it: else take it off the list.
				mt -P "$overlay@$crtc:${w}x$h+$x0+$y0@$f" | grep -q "unknown format" ||
					hidden="$hidden $f"
				continue ;;
			esac
			t0=$(date +%s%N)
			hold -P "$overlay@$crtc:${w}x$h+$x0+$y0@$f"
			why=""
			# The DRM core's view: the overlay holds a framebuffer of that format.
			on_screen "$f" || why="the DRM state shows no $f framebuffer on plane $overlay"
			t1=$(date +%s%N)
			# The frame changes once the vblank latches it; the first changed one is read twice.
			for _ in $(seq 20); do
				[ -z "$why" ] || break
				ppm "$tmp/a.ppm" && ! cmp -s "$tmp/a.ppm" "$tmp/base.ppm" && break
				kill -0 "$held" 2>/dev/null || break
				sleep 0.1
			done
			if [ -n "$why" ]; then
				:
			elif cmp -s "$tmp/a.ppm" "$tmp/base.ppm"; then
				why="the frame never changed"
			elif ! ppm "$tmp/b.ppm" || ! cmp -s "$tmp/a.ppm" "$tmp/b.ppm"; then
				why="the frame is not stable"
			else
				# Every changed byte inside the plane (15 bytes of header).
				outside=$(cmp -l "$tmp/base.ppm" "$tmp/a.ppm" | awk -v x0=$x0 -v y0=$y0 \
					-v w=$w -v h=$h '{ p = int(($1 - 16) / 3); x = p % 640; y = int(p / 640)
						if (x < x0 || x >= x0 + w || y < y0 || y >= y0 + h) n++ }
						END { print n + 0 }')
				[ "$outside" = 0 ] || why="$outside bytes changed outside the plane"
			fi
			t2=$(date +%s%N)
			release
			rc=$?
			[ $rc = 0 ] || why="${why:+$why; }modetest exited $rc: $(tail -1 "$tmp/held.log")"
			echo "# $f: ${why:-shown} (ms: to the state $(((t1 - t0) / 1000000)), frames" \
				"$(((t2 - t1) / 1000000)), exit $((($(date +%s%N) - t2) / 1000000)))"
			if [ -z "$why" ]; then
				shown="$shown $f"
			else
				refused="$refused $f ($why)"
			fi
		done
		echo "# modetest showed on plane $overlay:$shown; cannot draw: $cannot_draw"
		if [ -n "$shown" ] && [ -z "$refused" ]; then
			pass modetest-shows-every-format-it-draws
		else
			fail modetest-shows-every-format-it-draws "expected each shown, got:${refused:- none shown}"
		fi
		if [ -z "$hidden" ]; then
			pass modetest-cannot-draw-list-holds
		else
			fail modetest-cannot-draw-list-holds "modetest draws$hidden now: take them off cannot_draw"
		fi
	fi
	rm -rf "$tmp"
fi

finish
