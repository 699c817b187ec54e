/* SPDX-License-Identifier: GPL-2.0-only */
/* sockbuf.h - socket buffer sizing, shared by sender and receiver. */
#ifndef LL_SOCKBUF_H
#define LL_SOCKBUF_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Set SO_RCVBUF/SO_SNDBUF (or the *FORCE variants, which need CAP_NET_ADMIN
 * and bypass net.core.[rw]mem_max) to bytes, unless bytes < 0; return the
 * value getsockopt reports. Linux doubles the request for its bookkeeping and
 * caps the plain variant at 2 * [rw]mem_max (socket(7); sock_setsockopt). In a
 * non-init netns [rw]mem_max are read-only mirrors of the init netns value,
 * so FORCE is the only way past them there. A failure is fatal (exit 1).
 */
int ll_sockbuf(int fd, bool rcv, int64_t bytes, bool force);

#endif /* LL_SOCKBUF_H */
