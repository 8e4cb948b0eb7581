#!/bin/bash
# SPDX-License-Identifier: MIT
# modetest: libdrm's own test client (Debian libdrm-tests) drives the driver.
#   modetest -M DRIVER -c   lists a connected connector with modes
#   modetest -M DRIVER -p   lists CRTCs and planes
#   modetest -M DRIVER -s CONNECTOR@CRTC:MODE   sets a mode and exits cleanly
#                           (stdin is /dev/null, so it does not wait for a key)
#
# usage: tests/kms/modetest.sh DRIVER
set -u
driver=${1:?usage: $0 DRIVER}
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

finish
