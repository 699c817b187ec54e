// SPDX-License-Identifier: GPL-2.0-only
/*
 * send.c - lanloss-send: paced UDP/TCP traffic with a sequence and timestamp
 * header in every datagram (wire.h); prints a JSON report (send_report.c).
 * The UDP and TCP send loops are in tx_udp.c and tx_tcp.c.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "send.h"
#include "wire.h"

/* A format: the payload limits are printed from their definitions (parse_args). */
static const char usage_format[] =
	"usage: lanloss-send --dst ADDR [options]\n"
	"  --dst ADDR            IPv4 unicast or multicast destination (required)\n"
	"  --port N              destination port (" LL_STR(LANLOSS_PORT) ")\n"
	"  --proto udp|tcp       (udp)\n"
	"  --payload N           UDP payload 1..%u, TCP message 1..%u (1472)\n"
	"  --rate BPS|max        payload bit/s, or max = as fast as the kernel takes\n"
	"                        (1000000, as iperf3)\n"
	"  --pattern P           cbr | poisson | burst:N (cbr)\n"
	"  --seed N              run seed 1.. (1): poisson gaps come from the stream\n"
	"                        of (seed, --flow), as in the simulator\n"
	"  --duration SEC        stop after SEC seconds\n"
	"  --count N             stop after N datagrams/messages sent\n"
	"  --ttl N               IP_TTL, or IP_MULTICAST_TTL for a group\n"
	"  --mcast-loop 0|1      IP_MULTICAST_LOOP\n"
	"  --mcast-if ADDR       IP_MULTICAST_IF\n"
	"  --sndbuf BYTES        SO_SNDBUF\n"
	"  --sndbuf-force        use SO_SNDBUFFORCE for --sndbuf (root)\n"
	"  --batch N             max datagrams per sendmmsg 1..1024 (32)\n"
	"  --gso                 UDP GSO (UDP_SEGMENT): datagrams sent together go as one\n"
	"                        super-datagram (falls back to sendmmsg if refused);\n"
	"                        on veth it crosses bridges and qdiscs as one packet\n"
	"  --flow N              flow id written in every header (0)\n"
	"  --start-at NS         first send at CLOCK_MONOTONIC NS (a barrier)\n"
	"  --start-burst N       UDP: N datagrams back to back at the start, before\n"
	"                        the pattern's schedule (0..1000000; 0)\n"
	"  --stamp-clock monotonic|realtime\n"
	"                        clock of the header's tx_ns (monotonic): realtime\n"
	"                        when the receiver runs in another kernel\n"
	"  --realtime PRIO       pace under SCHED_FIFO at PRIO 1..99 (UDP, at most\n"
	"                        25000 datagrams/s; else, or if refused, CFS: the\n"
	"                        report's \"sched\" says which)\n"
	"  --json FILE           write the report to FILE instead of stdout\n"
	"Without --duration and --count it runs until SIGINT/SIGTERM.\n";

enum {
	O_DST = LL_O_OWN,
	O_PAYLOAD,
	O_RATE,
	O_PATTERN,
	O_SEED,
	O_DURATION,
	O_COUNT,
	O_TTL,
	O_MLOOP,
	O_MIF,
	O_SNDBUF,
	O_SNDBUF_FORCE,
	O_GSO,
	O_FLOW,
	O_START_AT,
	O_START_BURST,
	O_REALTIME,
};

static const struct option options[] = {
	LL_COMMON_OPTIONS,
	{ "dst", required_argument, NULL, O_DST },
	{ "payload", required_argument, NULL, O_PAYLOAD },
	{ "rate", required_argument, NULL, O_RATE },
	{ "pattern", required_argument, NULL, O_PATTERN },
	{ "seed", required_argument, NULL, O_SEED },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "count", required_argument, NULL, O_COUNT },
	{ "ttl", required_argument, NULL, O_TTL },
	{ "mcast-loop", required_argument, NULL, O_MLOOP },
	{ "mcast-if", required_argument, NULL, O_MIF },
	{ "sndbuf", required_argument, NULL, O_SNDBUF },
	{ "sndbuf-force", no_argument, NULL, O_SNDBUF_FORCE },
	{ "gso", no_argument, NULL, O_GSO },
	{ "flow", required_argument, NULL, O_FLOW },
	{ "start-at", required_argument, NULL, O_START_AT },
	{ "start-burst", required_argument, NULL, O_START_BURST },
	{ "realtime", required_argument, NULL, O_REALTIME },
	{ NULL, 0, NULL, 0 },
};

static void parse_pattern(struct send_cfg *c, const char *v)
{
	if (strlen(v) >= sizeof(c->pattern))
		goto bad;
	strcpy(c->pattern, v);
	if (!strcmp(v, "cbr")) {
		c->pat = LL_CBR;
		return;
	}
	if (!strcmp(v, "poisson")) {
		c->pat = LL_POISSON;
		return;
	}
	if (!strncmp(v, "burst:", 6) && v[6] >= '1' && v[6] <= '9') {
		char *end;
		unsigned long n = strtoul(v + 6, &end, 10);

		if (!*end && n >= 1 && n <= 1000000) {
			c->pat = LL_BURST;
			c->burst = (uint32_t)n;
			return;
		}
	}
bad:
	ll_usage_error(
		"--pattern: invalid value '%s' (expected cbr, poisson or burst:N with N 1..1000000)",
		v);
}

/* --rate: bit/s 1..10^12, or max (0: as fast as the socket takes). */
static uint64_t parse_rate(const char *v)
{
	if (!strcmp(v, "max"))
		return 0;
	if (v[0] < '0' || v[0] > '9')
		ll_usage_error(
			"--rate: invalid value '%s' (expected bit/s as an integer 1..10^12, or max)",
			v);
	return ll_opt_u64("rate", v, 1, 1000000000000ull);
}

/*
 * What the options say together: --dst is required, --payload's range depends on
 * --proto (given as text @payload, or NULL), TCP needs a unicast --dst, --sndbuf-force
 * needs --sndbuf.
 */
static void check_args(struct send_cfg *c, const char *dst,
		       const char *payload)
{
	if (!dst)
		ll_usage_error(
			"--dst: missing (the destination address is required)");
	if (payload)
		c->payload = (uint32_t)ll_opt_u64("payload", payload, 1,
						  c->proto == LL_UDP
							  ? LL_UDP_MAX_PAYLOAD
							  : LL_TCP_MAX_MESSAGE);
	if (c->proto == LL_TCP && ll_is_multicast(c->dst))
		ll_usage_error(
			"--dst: invalid value '%s' (TCP needs a unicast address)",
			dst);
	if (c->sndbuf_force && c->sndbuf < 0)
		ll_usage_error("--sndbuf-force: needs --sndbuf BYTES");
	if (c->start_burst && c->proto != LL_UDP)
		ll_usage_error("--start-burst: %llu needs --proto udp",
			       (unsigned long long)c->start_burst);
}

static void parse_args(int argc, char **argv, struct send_cfg *c,
		       const char **json)
{
	const char *payload = NULL, *dst = NULL;
	const struct ll_common_opts common = { &c->port, &c->proto, &c->batch,
					       json };
	static char usage[sizeof usage_format + 16];
	int o;

	snprintf(usage, sizeof usage, usage_format, (unsigned)LL_UDP_MAX_PAYLOAD,
		 (unsigned)LL_TCP_MAX_MESSAGE);
	while ((o = ll_opt_next(argc, argv, options, usage)) != -1) {
		if (ll_opt_common(o, optarg, &common))
			continue;
		switch (o) {
		case O_DST:
			dst = optarg;
			c->dst = ll_opt_ipv4("dst", optarg);
			break;
		case O_PAYLOAD:
			payload = optarg; /* range depends on --proto */
			break;
		case O_RATE:
			c->rate = parse_rate(optarg);
			break;
		case O_PATTERN:
			parse_pattern(c, optarg);
			break;
		case O_SEED:
			c->seed = ll_opt_u64("seed", optarg, 1, UINT64_MAX / 4096);
			break;
		case O_DURATION:
			c->duration = ll_opt_dbl("duration", optarg, 1e-6, 1e7);
			break;
		case O_COUNT:
			c->count = ll_opt_u64("count", optarg, 1, UINT64_MAX);
			break;
		case O_TTL:
			c->ttl = (int)ll_opt_u64("ttl", optarg, 0, 255);
			break;
		case O_MLOOP:
			c->mcast_loop =
				(int)ll_opt_u64("mcast-loop", optarg, 0, 1);
			break;
		case O_MIF:
			c->mcast_if = ll_opt_ipv4("mcast-if", optarg);
			c->has_mcast_if = true;
			break;
		case O_SNDBUF:
			c->sndbuf = ll_opt_sockbuf("sndbuf", optarg);
			break;
		case O_SNDBUF_FORCE:
			c->sndbuf_force = true;
			break;
		case O_GSO:
			c->gso = true;
			break;
		case O_FLOW:
			c->flow = (uint32_t)ll_opt_u64("flow", optarg, 0,
						       UINT32_MAX);
			break;
		case O_START_AT:
			c->start_at =
				ll_opt_u64("start-at", optarg, 0, UINT64_MAX);
			break;
		case O_START_BURST:
			c->start_burst =
				ll_opt_u64("start-burst", optarg, 0, 1000000);
			break;
		case O_REALTIME:
			c->realtime = (int)ll_opt_u64("realtime", optarg, 1, 99);
			break;
		}
	}
	check_args(c, dst, payload);
}

uint64_t ll_tx_start(const struct send_cfg *c)
{
	uint64_t now;

	if (c->start_at && !ll_wait_until(c->start_at))
		return 0;
	now = ll_mono_ns();
	/* A barrier already past: start now rather than burst to catch up. */
	return c->start_at > now ? c->start_at : now;
}

int main(int argc, char **argv)
{
	struct send_cfg c = {
		.port = LANLOSS_PORT,
		.proto = LL_UDP,
		.payload = 1472,
		.rate = 1000000,
		.pat = LL_CBR,
		.pattern = "cbr",
		.seed = 1,
		.ttl = -1,
		.mcast_loop = -1,
		.sndbuf = -1,
		.batch = 32,
	};
	static struct send_res r;
	const char *json = NULL;
	FILE *out = stdout;

	ll_prog = "lanloss-send";
	parse_args(argc, argv, &c, &json);
	/* Open the report file first: a bad path must not cost a whole run. */
	if (json && !(out = fopen(json, "w")))
		ll_fail("--json %s: cannot open: %m", json);
	ll_catch_stop_signals();
	ll_die_with_parent();
	ll_clock_tight_slack();
	ll_hist_init(&r.late);
	r.rt.prio = c.realtime;
	ll_rt_enter(&r.rt, c.proto == LL_UDP && c.rate
				   ? (double)c.rate / (8.0 * c.payload)
				   : 0.0);

	if (c.proto == LL_UDP)
		ll_tx_udp(&c, &r);
	else
		ll_tx_tcp(&c, &r);

	ll_send_report(out, &c, &r);
	if (out != stdout && fclose(out) != 0)
		ll_fail("--json %s: write failed", json);
	return r.fatal ? LL_EXIT_FAIL : 0;
}
