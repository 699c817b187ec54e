/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opts.h - flag value parsing. Every bad value ends the program with one line
 * on stderr naming the flag and the value, and exit status 2, before any
 * socket is opened.
 */
#ifndef LL_OPTS_H
#define LL_OPTS_H

#include <getopt.h>
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

/*
 * The next option of the command line (getopt_long over @options), or -1 once none
 * is left. "--help" prints @usage and exits 0; an unknown option, a missing value
 * or, at the end, a positional argument ends the program with one line and exit
 * status 2.
 */
int ll_opt_next(int argc, char **argv, const struct option *options,
		const char *usage);

static inline int ll_is_multicast(struct in_addr a)
{
	return IN_MULTICAST(ntohl(a.s_addr));
}

#endif /* LL_OPTS_H */
