#!/bin/bash
# SPDX-License-Identifier: MIT
# In the guest: start a Wayland compositor on a KMS driver's card, wait
# until it is ready, run one client against it, stop the compositor
# cleanly. Any compositor command line works; weston and sway are presets
# of the same path. Exit status: the client's; 125 if the compositor did
# not come up, 124 if it did not stop within 10 s of being asked (killed
# then).
#
# What every compositor gets:
#   a seat       seatd for the session's user, LIBSEAT_BACKEND=seatd, no VT
#   a runtime    XDG_RUNTIME_DIR, a fresh directory; HOME and XDG_CACHE_HOME
#                writable for a user other than root (the root filesystem
#                is the host's, read-only)
#   the card     found by its driver in sysfs (or given with -c):
#                FLIPFENCE_CARD=/dev/dri/cardN, WLR_DRM_DEVICES the same
#                (wlroots; with -c, every card given), and @CARD@ /
#                @DEVICE@ in its arguments and the client's replaced by
#                cardN / /dev/dri/cardN, @RESULTS@ by $FLIPFENCE_RESULTS
#   no input     WLR_LIBINPUT_NO_DEVICES=1: the guest has no input devices
# It is ready once a Wayland socket appears in XDG_RUNTIME_DIR and a client
# there sees a wl_output. The client runs as the same user with
# WAYLAND_DISPLAY set; with -R it finds a writable $FLIPFENCE_RESULTS.
#
# Presets:
#   weston	Weston 14: DRM backend, pixman renderer, desktop shell, no
#		idle blanking, no start-up fade; as root, through libseat
#		and the session's seatd on seat "flipfence" (no VT). Its kiosk shell
#		(FLIPFENCE_WESTON_SHELL=kiosk-shell.so) stops sending frame
#		callbacks to weston-simple-shm and weston-presentation-shm
#		after their first buffer, on vkms as on flipkms
#   sway	sway 1.7 (wlroots 0.15): DRM backend, pixman renderer, no
#		Xwayland; it refuses root, so it runs as nobody, and the card
#		is handed to nobody for the session (wlroots' dumb-buffer
#		allocator reopens the card node by path); lines in
#		$FLIPFENCE_SWAY_CONFIG are added to its config (e.g.
#		"output * adaptive_sync on")
#
# The compositor's output is kept in $FLIPFENCE_SESSION_LOG if that is set
# (else a scratch file), and its last lines are printed when it fails;
# $FLIPFENCE_SESSION_STATE, if set, gets the card's DRM state (debugfs
# "state": the mode the compositor set) once it is ready.
#
# usage: tests/compositor/session.sh [OPTIONS] weston|sway [-- CLIENT [ARGS...]]
#        tests/compositor/session.sh [OPTIONS] -- COMPOSITOR [ARGS...] [-- CLIENT [ARGS...]]
#   -d DRIVER     flipkms (default) or vkms
#   -c CARDS      the cards to use instead of the driver's first one:
#                 cardN[:cardM...] (a configfs device's, say); the first is
#                 @CARD@, all of them WLR_DRM_DEVICES and handed to USER;
#                 the weston preset gets the others as --additional-devices
#   -u USER       run compositor and client as USER (default root)
#   -e VAR=VALUE  environment for compositor and client (repeatable)
#   -w SECONDS    how long the compositor may take to come up (default 30)
#   -R            keep the session in $FLIPFENCE_RESULTS: compositor.log,
#                 seatd.log, drm-state.txt and session.tap (one result line
#                 each for coming up, the client and stopping)
#   -s HOW        how to stop it: term (default), SIGTERM to the compositor;
#                 children, SIGTERM to the processes it started (a kiosk's
#                 application), after which it should exit by itself
#   -x            the compositor runs its client itself (a kiosk such as
#                 cage): no CLIENT; once it is up, wait until it exits,
#                 and its exit status is the session's
# The compositor's arguments end at the first "--" (with -x, at the end);
# CLIENT defaults to wayland-info.
set -u
here=$(dirname "$0")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"

usage() {
	sed -n '/^# usage:/,/^# wayland-info/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

driver=flipkms cards="" user="" wait_s=30 keep=0 preset="" own_client=0 stop=term
extra_env=()
generic=0
while [ $# -gt 0 ]; do
	case $1 in
	-d|-c|-u|-e|-w|-s) [ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	-d) driver=$2 ;;
	-c) cards=$2 ;;
	-u) user=$2 ;;
	-e) case $2 in [A-Za-z_]*=*) extra_env+=("$2") ;; *) usage ;; esac ;;
	-w) wait_s=$2 ;;
	-s) case $2 in term|children) stop=$2 ;; *) usage ;; esac ;;
	-R) keep=1; shift; continue ;;
	-x) own_client=1; shift; continue ;;
	--) generic=1; shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift 2
done
compositor=()
if [ $generic -eq 0 ]; then
	preset=${1:-}
	case $preset in weston|sway) shift ;; *) usage ;; esac
else
	# With -x, everything is the compositor's, a "--" of its own included.
	while [ $# -gt 0 ] && { [ "$1" != -- ] || [ $own_client -eq 1 ]; }; do
		compositor+=("$1")
		shift
	done
	[ ${#compositor[@]} -gt 0 ] || usage
fi
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- wayland-info
[ $own_client -eq 0 ] || [ -z "$preset" ] || usage
[ $keep -eq 0 ] || [ -n "${FLIPFENCE_RESULTS:-}" ] ||
	{ echo "session.sh: -R needs \$FLIPFENCE_RESULTS (scripts/vm -r DIR)" >&2; exit 2; }

say() { echo "# session: $*"; }
if [ -n "$cards" ]; then
	IFS=: read -ra all_cards <<<"$cards"
	all_cards=("${all_cards[@]##*/}")
	for c in "${all_cards[@]}"; do
		[ -c "/dev/dri/$c" ] || { say "no card $c"; exit 125; }
	done
	card=${all_cards[0]}
	minor=${card#card}
else
	minor=$(drm_minor_of "$driver") || { say "no $driver card"; exit 125; }
	card=card$minor
	all_cards=("$card")
fi
devices=$(printf '/dev/dri/%s:' "${all_cards[@]}")
devices=${devices%:}
run=$(mktemp -d /run/flipfence-session.XXXXXX)
chmod 0711 "$run"
log=${FLIPFENCE_SESSION_LOG:-$run/compositor.log}
results=${FLIPFENCE_RESULTS:-}
seatd_pid="" pid=""
tap=$run/session.tap
: >"$tap"

case $preset in
weston)
	# No start-up fade: the desktop shell keeps the screen black behind a
	# curtain until its client is ready (seconds under TCG), which would
	# hide what clients show from frame.ppm and writeback.
	printf '[shell]\nstartup-animation=none\n' >"$run/weston.ini"
	# Weston 14 launches through libseat only (the session's seatd); on a
	# seat other than seat0 it leaves the VTs alone.
	compositor=(weston --config="$run/weston.ini" --backend=drm --drm-device=@CARD@ --seat=flipfence
		--continue-without-input --renderer=pixman --idle-time=0
		--shell="${FLIPFENCE_WESTON_SHELL:-desktop-shell.so}")
	# More cards (-c): Weston 13+ drives them for output only.
	[ ${#all_cards[@]} -gt 1 ] &&
		compositor+=(--additional-devices="$(IFS=,; echo "${all_cards[*]:1}")")
	;;
sway)
	: "${user:=nobody}"
	printf 'xwayland disable\noutput * bg #203040 solid_color\n%s\n' \
		"${FLIPFENCE_SWAY_CONFIG:-}" >"$run/sway.config"
	compositor=(sway ${FLIPFENCE_SWAY_DEBUG:+-d} -c "$run/sway.config")
	extra_env=(WLR_BACKENDS=drm WLR_RENDERER=pixman "${extra_env[@]}")
	;;
esac
: "${user:=root}"
name=${preset:-${compositor[0]##*/}}
id -u "$user" >/dev/null 2>&1 || { say "no user $user"; exit 2; }

cleanup() {
	[ -n "$pid" ] && kill -9 -- "-$pid" 2>/dev/null
	if [ -n "$seatd_pid" ]; then
		kill "$seatd_pid" 2>/dev/null
		wait "$seatd_pid" 2>/dev/null
	fi
	for c in "${all_cards[@]}"; do
		[ -c "/dev/dri/$c" ] && chown root "/dev/dri/$c"
	done
	if [ $keep -eq 1 ]; then
		[ "$log" = "$run/compositor.log" ] && cp "$log" "$results/compositor.log"
		cp "$run/seatd.log" "$tap" "$results/" 2>/dev/null
		# What a client running as another user wrote to its results.
		[ -d "$run/results" ] && cp -r "$run/results/." "$results/"
	fi
	rm -rf "$run"
}
trap cleanup EXIT

export XDG_RUNTIME_DIR=$run/xdg
mkdir -m 0700 "$XDG_RUNTIME_DIR"
client_results=$results
if [ "$user" != root ]; then
	mkdir -p "$run/home/.cache"
	chown -R "$user" "$XDG_RUNTIME_DIR" "$run/home"
	chown "$user" "${all_cards[@]/#//dev/dri/}"
	if [ $keep -eq 1 ]; then
		mkdir "$run/results"
		chown "$user" "$run/results"
		client_results=$run/results
	fi
fi

for i in "${!compositor[@]}"; do
	compositor[i]=${compositor[i]//@CARD@/$card}
	compositor[i]=${compositor[i]//@DEVICE@//dev/dri/$card}
	compositor[i]=${compositor[i]//@RESULTS@/$client_results}
done

# The session's environment, for compositor and client alike.
session_env=(XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" LIBSEAT_BACKEND=seatd FLIPFENCE_CARD="/dev/dri/$card"
	WLR_DRM_DEVICES="$devices" WLR_LIBINPUT_NO_DEVICES=1 FLIPFENCE_RESULTS="$client_results")
[ "$user" = root ] || session_env+=(HOME="$run/home" XDG_CACHE_HOME="$run/home/.cache")
session_env+=("${extra_env[@]}")

as_user=(env -u WAYLAND_DISPLAY -u DISPLAY "${session_env[@]}")
[ "$user" = root ] ||
	as_user=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups "${as_user[@]}")

result() {
	if [ "$1" -eq 0 ]; then echo "ok - $name/$2"; else echo "not ok - $name/$2: $3"; fi >>"$tap"
}

# libseat 0.7's noop backend enables the seat only from a dispatch that
# nothing triggers (its fd never becomes readable), so wlroots 0.15 times
# out waiting: a seatd for the session's user, with no VT to bind to.
SEATD_VTBOUND=0 seatd -u "$user" -l info >"$run/seatd.log" 2>&1 &
seatd_pid=$!
for _ in $(seq 50); do
	[ -S /run/seatd.sock ] && break
	sleep 0.1
done
[ -S /run/seatd.sock ] || { say "seatd did not start:"; sed 's/^/#   /' "$run/seatd.log"; }

# Ready: a Wayland socket exists and a client on it sees an output.
# libwayland locks each display socket with NAME.lock beside it, which
# tells it from other sockets there (sway's IPC socket, say).
socket=""
ready() {
	local s
	for s in "$XDG_RUNTIME_DIR"/*.lock; do
		[ -S "${s%.lock}" ] && { socket=${s##*/}; socket=${socket%.lock}; break; }
	done
	[ -n "$socket" ] || return 1
	"${as_user[@]}" WAYLAND_DISPLAY="$socket" timeout 10 wayland-info 2>/dev/null |
		grep -q "interface: 'wl_output'"
}

# alive PID: it runs (a killed compositor not yet waited for is a zombie,
# which kill -0 still finds).
alive() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${state%% *}" != Z ]
}

started=$(date +%s.%N)
# Its own process group, so that what it starts dies with it; env,
# setpriv and setsid exec each other, so $! is the compositor.
"${as_user[@]}" setsid "${compositor[@]}" >"$log" 2>&1 &
pid=$!
up=0
for _ in $(seq $((wait_s * 10))); do
	alive "$pid" || break
	ready && { up=1; break; }
	sleep 0.1
done
if [ $up -eq 0 ]; then
	how="in $wait_s s"
	alive "$pid" || { wait "$pid"; how="(it exited with status $?)"; }
	say "$name did not come up on $driver ($card) $how; its log ends:"
	tail -15 "$log" | sed 's/^/#   /'
	result 1 comes-up "did not come up on $driver ($card) $how"
	exit 125
fi
[ -n "${FLIPFENCE_SESSION_STATE:-}" ] && cat "/sys/kernel/debug/dri/$minor/state" >"$FLIPFENCE_SESSION_STATE"
[ $keep -eq 1 ] && cat "/sys/kernel/debug/dri/$minor/state" >"$results/drm-state.txt"
say "$name ready on $driver ($card, $socket) after $(echo "$(date +%s.%N) - $started" | bc) s"
result 0 comes-up

# A kiosk that runs its client itself (-x): its exit is the session's end.
if [ $own_client -eq 1 ]; then
	wait "$pid"
	rc=$?
	pid=""
	say "$name exited $rc"
	result $rc client "${compositor[*]} exited with status $rc"
	exit $rc
fi

client=()
for a in "$@"; do
	a=${a//@CARD@/$card}
	a=${a//@DEVICE@//dev/dri/$card}
	client+=("${a//@RESULTS@/$client_results}")
done
"${as_user[@]}" WAYLAND_DISPLAY="$socket" "${client[@]}"
rc=$?
result $rc client "${client[*]} exited with status $rc"

if ! alive "$pid"; then
	wait "$pid"
	crc=$?
	say "$name exited $crc before it was stopped"
	result 1 stops-cleanly "it exited with status $crc before the client ended"
	exit $rc
fi
if [ "$stop" = term ]; then
	how="SIGTERM"
	kill -TERM "$pid"
else
	how="SIGTERM to its children"
	pkill -TERM -P "$pid"
fi
for _ in $(seq 100); do
	alive "$pid" || break
	sleep 0.1
done
if alive "$pid"; then
	say "$name still running 10 s after $how: killed"
	result 1 stops-cleanly "still running 10 s after $how"
	exit 124
fi
wait "$pid"
crc=$?
pid_done=$pid
pid=""
kill -9 -- "-$pid_done" 2>/dev/null	# what it started and left behind
say "$name exited $crc after $how"
result $crc stops-cleanly "it exited with status $crc after $how"
exit $rc
