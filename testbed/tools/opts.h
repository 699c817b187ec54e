/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opts.h - flag value parsing. Every bad value ends the program with one line
 * on stderr naming the flag and the value, and exit status 2, before any
 * socket is opened.
 */
#ifndef LL_OPTS_H
#define LL_OPTS_H

#include <netinet/in.h>
#include <stdint.h>

enum ll_proto { LL_UDP, LL_TCP };

uint64_t ll_opt_u64(const char *flag, const char *val, uint64_t lo,
		    uint64_t hi);
double ll_opt_dbl(const char *flag, const char *val, double lo, double hi);
struct in_addr ll_opt_ipv4(const char *flag, const char *val);
enum ll_proto ll_opt_proto(const char *flag, const char *val);
/* A socket buffer size in bytes (--rcvbuf, --sndbuf): 1..INT_MAX. */
int64_t ll_opt_sockbuf(const char *flag, const char *val);
/* Datagrams per recvmmsg/sendmmsg call (--batch): 1..1024. */
unsigned ll_opt_batch(const char *val);

/* After getopt_long returned '?' or ':' (optstring must start with ':'). */
void ll_opt_bad(int c, char **argv) __attribute__((noreturn));
/* Reject positional arguments left after option parsing. */
void ll_opt_no_args(int argc, char **argv);

static inline int ll_is_multicast(struct in_addr a)
{
	return IN_MULTICAST(ntohl(a.s_addr));
}

#endif /* LL_OPTS_H */
