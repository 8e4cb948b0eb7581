#!/bin/bash
# SPDX-License-Identifier: MIT
# Debian's mutter 43 as a Wayland display server on the native (KMS)
# backend, in a guest without systemd or D-Bus: the compositor command for
# tests/compositor/session.sh's generic path. It provides what mutter asks
# logind and udev for, then execs mutter (so SIGTERM reaches it; what it
# started here stays in its process group, which session.sh kills after):
#   a session     /run/systemd/sessions/c1 (libsystemd's sd_session_*
#                 read it: XDG_SESSION_ID=c1, type wayland, active, seat0)
#                 and on a private "system" bus tests/compositor/
#                 mutter-logind-mock.py's login1, which grants
#                 TakeControl and TakeDevice
#   the card      udevd, so the card carries udev's "seat" tag: mutter
#                 only lists DRM cards tagged so (71-seat.rules)
#   a session bus for its own services; settings from GSettings defaults
# Logs (mock, udevd) go to DIR, default $XDG_RUNTIME_DIR.
# usage: tests/compositor/mutter-launch.sh [-l DIR] [MUTTER-ARGS...]
set -u
here=$(dirname "$0")
logs=$XDG_RUNTIME_DIR
[ "${1:-}" = -l ] && { logs=$2; shift 2; }
run=$XDG_RUNTIME_DIR/mutter-launch
mkdir -p "$run/home" /run/systemd/sessions
printf 'UID=%s\nUSER=%s\nACTIVE=1\nSTATE=active\nTYPE=wayland\nCLASS=user\nSEAT=seat0\n' \
	"$(id -u)" "$(id -un)" >/run/systemd/sessions/c1

/lib/systemd/systemd-udevd --resolve-names=never >"$logs/udevd.log" 2>&1 &
for _ in $(seq 50); do
	udevadm control --ping 2>/dev/null && break
	sleep 0.1
done
udevadm trigger --action=add --subsystem-match=drm && udevadm settle -t 10

dbus-daemon --nofork --session --address="unix:path=$run/system_bus" &
dbus-daemon --nofork --session --address="unix:path=$run/session_bus" &
for _ in $(seq 100); do
	[ -S "$run/system_bus" ] && [ -S "$run/session_bus" ] && break
	sleep 0.1
done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$run/system_bus
export DBUS_SESSION_BUS_ADDRESS=unix:path=$run/session_bus
/usr/bin/python3 "$here/mutter-logind-mock.py" c1 "$run/ready" >"$logs/logind-mock.log" 2>&1 &
for _ in $(seq 300); do
	[ -e "$run/ready" ] && break
	sleep 0.1
done
[ -e "$run/ready" ] || { echo "mutter-launch: the logind mock did not start" >&2; exit 1; }

export XDG_SESSION_ID=c1 XDG_SESSION_TYPE=wayland GSETTINGS_BACKEND=memory HOME=$run/home
export MUTTER_DEBUG=${MUTTER_DEBUG:-backend,kms}
exec mutter --wayland --display-server --no-x11 "$@"
