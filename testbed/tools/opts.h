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

/*
 * The options both tools take with one meaning. Their getopt codes come
 * first, a tool's own codes start at LL_O_OWN, and LL_COMMON_OPTIONS are their
 * entries of the getopt_long table.
 */
enum {
	LL_O_PORT = 1,
	LL_O_PROTO,
	LL_O_BATCH,
	LL_O_STAMP_CLOCK,
	LL_O_JSON,
	LL_O_HELP,
	LL_O_OWN,
};

#define LL_COMMON_OPTIONS                                             \
	{ "port", required_argument, NULL, LL_O_PORT },               \
	{ "proto", required_argument, NULL, LL_O_PROTO },             \
	{ "batch", required_argument, NULL, LL_O_BATCH },             \
	{ "stamp-clock", required_argument, NULL, LL_O_STAMP_CLOCK }, \
	{ "json", required_argument, NULL, LL_O_JSON },               \
	{ "help", no_argument, NULL, LL_O_HELP }

/* Where the common options' values go (--stamp-clock sets the stamp clock). */
struct ll_common_opts {
	uint16_t *port;
	enum ll_proto *proto;
	unsigned *batch;
	const char **json;
};

/*
 * Applies option @o with value @val if it is a common one and returns 1;
 * returns 0 for a tool's own option.
 */
int ll_opt_common(int o, const char *val, const struct ll_common_opts *co);

static inline int ll_is_multicast(struct in_addr a)
{
	return IN_MULTICAST(ntohl(a.s_addr));
}

#endif /* LL_OPTS_H */
