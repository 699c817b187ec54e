// SPDX-License-Identifier: GPL-2.0-only
/* sockbuf.c - socket buffer sizing (see sockbuf.h). */
#include "sockbuf.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "util.h"

int ll_sockbuf(int fd, bool rcv, int64_t bytes, bool force)
{
	int opt, v = (int)bytes;
	socklen_t len = sizeof(v);
	const char *name;

	if (bytes >= 0) {
		if (rcv) {
			opt = force ? SO_RCVBUFFORCE : SO_RCVBUF;
			name = force ? "SO_RCVBUFFORCE" : "SO_RCVBUF";
		} else {
			opt = force ? SO_SNDBUFFORCE : SO_SNDBUF;
			name = force ? "SO_SNDBUFFORCE" : "SO_SNDBUF";
		}
		if (setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v)) < 0)
			ll_fail("%s %d: %s%s", name, v, strerror(errno),
				errno == EPERM ? " (needs CAP_NET_ADMIN)" : "");
	}
	if (getsockopt(fd, SOL_SOCKET, rcv ? SO_RCVBUF : SO_SNDBUF, &v, &len))
		ll_fail_errno("getsockopt(SO_RCVBUF/SO_SNDBUF)");
	return v;
}
