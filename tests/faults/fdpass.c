// SPDX-License-Identifier: MIT
/*
 * fdpass: what an unprivileged process can do with a fence root handed it.
 * Run as root: creates a sw_sync timeline and a fence on it, forks a child
 * that drops to uid/gid 65534 and receives only the fence fd (over a unix
 * socket, as a compositor would pass it). The child may wait on and
 * inspect the fence (sync_file allows that), but cannot open /dev/sw_sync,
 * and SW_SYNC ioctls on the fence fd are refused, so it cannot signal it.
 * Then root signals the fence and the child sees it signalled.
 *
 * usage: fdpass
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kms.h"
#include "sw_sync_uapi.h"

static void send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	require(sendmsg(sock, &msg, 0) == 1, "sendmsg");
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The unprivileged side; its checks print as usual and set its exit status. */
static int child(int sock)
{
	struct sw_sync_create_fence_data data = { .value = 1, .name = "evil" };
	struct kms_fence_info info;
	__u32 one = 1;
	int fence, fd;
	char go;

	require(!setgroups(0, NULL) && !setresgid(65534, 65534, 65534) &&
		!setresuid(65534, 65534, 65534), "drop to nobody");
	fence = recv_fd(sock);
	require(fence >= 0, "receive the fence");

	fd = open("/dev/sw_sync", O_RDWR);
	check("nobody-cannot-open-sw_sync", fd < 0 && errno == EACCES,
	      "expected EACCES, got %s", fd < 0 ? errno_name(errno) : "an open timeline");
	fd = open("/sys/kernel/debug/sync/sw_sync", O_RDWR);
	check("nobody-cannot-open-debugfs-sw_sync", fd < 0, "expected a refusal, got a timeline");
	check("passed-fence-can-be-inspected", kms_fence_info(fence, &info) == 0 && info.status == 0,
	      "expected SYNC_IOC_FILE_INFO to work and say active, got %s", errno_name(errno));
	check("passed-fence-cannot-be-signalled",
	      ioctl(fence, SW_SYNC_IOC_INC, &one) < 0 && kms_fence_polled(fence) == 0,
	      "expected SW_SYNC_IOC_INC refused and the fence still active");
	check("passed-fence-cannot-make-fences",
	      ioctl(fence, SW_SYNC_IOC_CREATE_FENCE, &data) < 0,
	      "expected SW_SYNC_IOC_CREATE_FENCE on a fence fd refused");
	require(write(sock, "w", 1) == 1 && read(sock, &go, 1) == 1, "sync with root");
	check("passed-fence-wait-sees-roots-signal", sync_wait(fence, 2000) == 0,
	      "expected the fence to signal for the waiter: %s", errno_name(errno));
	return finish();
}

int main(void)
{
	int sv[2], tl, fence, status;
	char ready;
	pid_t pid;

	watchdog(30);
	begin("setup");
	require(getuid() == 0, "run as root");
	tl = sw_sync_timeline_create();
	fence = sw_sync_fence_create(tl, "for-nobody", 1);
	require(tl >= 0 && fence >= 0, "sw_sync fence");
	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	fflush(stdout);
	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		close(sv[0]);
		close(tl);
		close(fence);
		_exit(child(sv[1]));
	}
	close(sv[1]);
	send_fd(sv[0], fence);
	require(read(sv[0], &ready, 1) == 1, "the child's checks");
	require(sw_sync_timeline_inc(tl, 1) == 0, "signal");
	require(write(sv[0], "g", 1) == 1, "tell the child");
	require(waitpid(pid, &status, 0) == pid, "wait for the child");
	close(fence);
	close(tl);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? finish() : 1;
}
