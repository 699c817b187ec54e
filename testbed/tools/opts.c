// SPDX-License-Identifier: GPL-2.0-only
/* opts.c - flag value parsing (see opts.h). */
#define _GNU_SOURCE
#include "opts.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "util.h"

uint64_t ll_opt_u64(const char *flag, const char *val, uint64_t lo, uint64_t hi)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts "-1" (as 2^64 - 1) and leading blanks: refuse. */
	if (!isdigit((unsigned char)val[0]))
		goto bad;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || *end || v < lo || v > hi)
		goto bad;
	return v;
bad:
	ll_usage_error(
		"--%s: invalid value '%s' (expected an integer %llu..%llu)",
		flag, val, (unsigned long long)lo, (unsigned long long)hi);
}

int64_t ll_opt_sockbuf(const char *flag, const char *val)
{
	return (int64_t)ll_opt_u64(flag, val, 1, INT_MAX);
}

unsigned ll_opt_batch(const char *val)
{
	return (unsigned)ll_opt_u64("batch", val, 1, 1024);
}

double ll_opt_dbl(const char *flag, const char *val, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (end == val || *end || errno || !isfinite(v) || v < lo || v > hi)
		ll_usage_error(
			"--%s: invalid value '%s' (expected a number %g..%g)",
			flag, val, lo, hi);
	return v;
}

struct in_addr ll_opt_ipv4(const char *flag, const char *val)
{
	struct in_addr a;

	if (inet_pton(AF_INET, val, &a) != 1)
		ll_usage_error(
			"--%s: invalid value '%s' (expected an IPv4 address)",
			flag, val);
	return a;
}

enum ll_proto ll_opt_proto(const char *flag, const char *val)
{
	if (!strcmp(val, "udp"))
		return LL_UDP;
	if (!strcmp(val, "tcp"))
		return LL_TCP;
	ll_usage_error("--%s: invalid value '%s' (expected udp or tcp)", flag,
		       val);
}

/* After getopt_long returned '?' or ':' (optstring ":"). */
static void __attribute__((noreturn)) opt_bad(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		ll_usage_error("%s: missing value", arg);
	ll_usage_error("unknown option '%s' (see --help)", arg);
}

/* Positional arguments left after the options are refused. */
static void opt_no_args(int argc, char **argv)
{
	if (optind < argc)
		ll_usage_error("unexpected argument '%s' (see --help)",
			       argv[optind]);
}

int ll_opt_next(int argc, char **argv, const struct option *options,
		const char *usage)
{
	int o, i = -1;

	opterr = 0;
	o = getopt_long(argc, argv, ":", options, &i);
	if (o == -1) {
		opt_no_args(argc, argv);
		return -1;
	}
	if (o == '?' || o == ':')
		opt_bad(o, argv);
	if (i >= 0 && !strcmp(options[i].name, "help")) {
		fputs(usage, stdout);
		exit(0);
	}
	return o;
}

int ll_opt_common(int o, const char *val, const struct ll_common_opts *co)
{
	switch (o) {
	case LL_O_PORT:
		*co->port = (uint16_t)ll_opt_u64("port", val, 1, 65535);
		return 1;
	case LL_O_PROTO:
		*co->proto = ll_opt_proto("proto", val);
		return 1;
	case LL_O_BATCH:
		*co->batch = ll_opt_batch(val);
		return 1;
	case LL_O_STAMP_CLOCK:
		ll_clock_set_stamp(ll_opt_stamp_clock(val));
		return 1;
	case LL_O_JSON:
		*co->json = val;
		return 1;
	}
	return 0;
}
