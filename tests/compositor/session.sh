#!/bin/bash
# SPDX-License-Identifier: MIT
# In the guest: start a Wayland compositor on a KMS driver's card, wait
# until it is ready, run one client against it, stop the compositor
# cleanly. Exit status: the client's; 125 if the compositor did not come
# up, 124 if it did not stop within 10 s of SIGTERM (killed then).
#
#   weston	Weston 10: DRM backend, pixman renderer, desktop shell, no
#		input devices, no idle blanking; run as root (its direct
#		launcher) on a seat other than seat0, so that it leaves the VTs
#		alone; no start-up animation. Its kiosk shell (FLIPFENCE_WESTON_SHELL=kiosk-shell.so)
#		stops sending frame callbacks to weston-simple-shm and
#		weston-presentation-shm after their first buffer, on vkms as
#		on flipkms; the desktop shell does not
#   sway	sway 1.7 (wlroots 0.15): DRM backend, pixman renderer, no
#		Xwayland; it refuses root, so it runs as nobody, with a
#		seatd for nobody (libseat's noop backend cannot work: see
#		start_sway), and the card is handed to nobody for the session
#
# The compositor's log is kept in $FLIPFENCE_SESSION_LOG if that is set
# (else a scratch file), and its last lines are printed when it fails;
# $FLIPFENCE_SESSION_STATE, if set, gets the card's DRM state (debugfs
# "state": the mode the compositor set) once it is ready.
#
# usage: tests/compositor/session.sh [-d DRIVER] weston|sway [-- CLIENT [ARGS...]]
#	DRIVER: flipkms (default) or vkms; CLIENT defaults to weston-info.
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"

driver=flipkms
while getopts d: opt; do
	case $opt in
	d) driver=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
compositor=${1:-}
shift || true
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- weston-info
case $compositor in weston|sway) ;; *)
	echo "usage: $0 [-d DRIVER] weston|sway [-- CLIENT [ARGS...]]" >&2; exit 2 ;;
esac

say() { echo "# session: $*"; }
minor=$(drm_minor_of "$driver") || { say "no $driver card"; exit 125; }
card=card$minor
run=$(mktemp -d /run/flipfence-session.XXXXXX)
log=${FLIPFENCE_SESSION_LOG:-$run/compositor.log}
seatd_pid=
cleanup() {
	if [ -n "$seatd_pid" ]; then
		kill "$seatd_pid" 2>/dev/null
		wait "$seatd_pid" 2>/dev/null
		chown root "/dev/dri/$card"
	fi
	rm -rf "$run"
}
trap cleanup EXIT
export XDG_RUNTIME_DIR=$run/xdg WAYLAND_DISPLAY=flipfence-0
mkdir -m 0700 "$XDG_RUNTIME_DIR"

start_weston() {
	# No start-up fade: the desktop shell keeps the screen black behind a
	# curtain until its client is ready (seconds under TCG), which would
	# hide what clients show from frame.ppm and writeback.
	printf '[shell]\nstartup-animation=none\n' >"$run/weston.ini"
	weston --config="$run/weston.ini" --backend=drm-backend.so --drm-device="$card" --seat=flipfence \
		--continue-without-input --use-pixman --idle-time=0 --shell=${FLIPFENCE_WESTON_SHELL:-desktop-shell.so} \
		--socket="$WAYLAND_DISPLAY" --log="$log" >/dev/null 2>&1 &
	pid=$!
}

start_sway() {
	local user=nobody i
	# wlroots' dumb-buffer allocator reopens the card node by path.
	chown "$user" "/dev/dri/$card" "$XDG_RUNTIME_DIR"
	chmod 0711 "$run"
	# libseat 0.7's noop backend enables the seat only from a dispatch
	# that nothing triggers (its fd never becomes readable), so wlroots
	# 0.15 times out waiting: a seatd for the session's user instead, with
	# no VT to bind to.
	SEATD_VTBOUND=0 seatd -u "$user" -l info >"$run/seatd.log" 2>&1 &
	seatd_pid=$!
	for i in $(seq 50); do
		[ -S /run/seatd.sock ] && break
		sleep 0.1
	done
	[ -S /run/seatd.sock ] || { say "seatd did not start:"; sed 's/^/#   /' "$run/seatd.log"; }
	printf 'xwayland disable\noutput * bg #203040 solid_color\n' >"$run/sway.config"
	setpriv --reuid=$user --regid=nogroup --clear-groups env HOME="$run" \
		XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" LIBSEAT_BACKEND=seatd WLR_BACKENDS=drm \
		WLR_RENDERER=pixman WLR_DRM_DEVICES="/dev/dri/$card" WLR_LIBINPUT_NO_DEVICES=1 \
		sway ${FLIPFENCE_SWAY_DEBUG:+-d} -c "$run/sway.config" >"$log" 2>&1 &
	pid=$!
	# sway names its socket itself (wayland-N): ready once one exists.
	WAYLAND_DISPLAY=
}

# Ready: a client can connect and sees an output.
ready() {
	local s
	if [ -z "$WAYLAND_DISPLAY" ]; then
		for s in "$XDG_RUNTIME_DIR"/wayland-[0-9]; do
			[ -S "$s" ] && WAYLAND_DISPLAY=${s##*/}
		done
		[ -n "$WAYLAND_DISPLAY" ] || return 1
	fi
	as_client weston-info 2>/dev/null | grep -q "interface: 'wl_output'"
}

# The client runs as the compositor's user, which owns the socket.
as_client() {
	if [ "$compositor" = sway ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" \
			WAYLAND_DISPLAY="$WAYLAND_DISPLAY" HOME="$run" "$@"
	else
		"$@"
	fi
}

started=$(date +%s.%N)
"start_$compositor"
up=0
for _ in $(seq 300); do
	kill -0 "$pid" 2>/dev/null || break
	ready && { up=1; break; }
	sleep 0.1
done
if [ $up -eq 0 ]; then
	say "$compositor did not come up on $driver ($card) in 30 s; its log ends:"
	tail -15 "$log" | sed 's/^/#   /'
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	exit 125
fi
[ -n "${FLIPFENCE_SESSION_STATE:-}" ] && cat "/sys/kernel/debug/dri/$minor/state" >"$FLIPFENCE_SESSION_STATE"
say "$compositor ready on $driver ($card, $WAYLAND_DISPLAY) after $(echo "$(date +%s.%N) - $started" | bc) s"

as_client "$@"
rc=$?

kill -TERM "$pid"
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
	say "$compositor still running 10 s after SIGTERM: killed"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	exit 124
fi
wait "$pid"
crc=$?
say "$compositor exited $crc after SIGTERM"
exit $rc
