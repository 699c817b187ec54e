// SPDX-License-Identifier: GPL-2.0-only
/*
 * recv_report.c - lanloss-recv's JSON report. Keys are a contract with the
 * Python harness (testbed/); add none without telling it.
 *
 * Loss counters, and what each can miss:
 *  - flows[].lost: seq gaps up to the highest seq seen; misses loss after
 *    it (the tail) and loss of a flow that never arrived at all;
 *  - rxq_ovfl (--rxq-ovfl only; null without it): SO_RXQ_OVFL delta; misses
 *    drops after the last datagram read;
 *  - socket_drops: /proc/net/udp drops of our sockets, read at the end:
 *    every drop at the socket, tail included. With a lossless network,
 *    sender "sent" - "received" = socket_drops + datagrams still queued
 *    (none after an idle stop).
 * With --readers N and --group, the kernel gives every socket its own copy
 * (__udp4_lib_mcast_deliver): "received" is N times the datagrams and the
 * merged flows count N - 1 duplicates of each (not with --sockets shared).
 * With --sockets shared the readers see one socket's cumulative SO_RXQ_OVFL:
 * rxq_ovfl is then its overall delta, not the readers' sum.
 * stop_reason: deadline, idle or signal; also eof (TCP: every reader's
 * connection closed) and error (every reader failed; exit status 1).
 */
#include <arpa/inet.h>

#include "clock.h"
#include "json.h"
#include "recv.h"

static void latency(struct ll_json *j, const struct ll_flow *f)
{
	if (!f->lat || !f->lat->n) {
		ll_json_null(j, "latency_us");
		return;
	}
	ll_json_obj(j, "latency_us");
	ll_json_dbl(j, "min", f->lat->min / 1e3);
	ll_json_dbl(j, "mean", ll_hist_mean(f->lat) / 1e3);
	ll_json_dbl(j, "p50", ll_hist_quantile(f->lat, 0.50) / 1e3);
	ll_json_dbl(j, "p99", ll_hist_quantile(f->lat, 0.99) / 1e3);
	ll_json_dbl(j, "max", f->lat->max / 1e3);
	ll_json_obj_end(j);
}

/* -1 (unknown) stays -1 in a sum. */
static int64_t add_known(int64_t sum, int64_t v)
{
	return sum < 0 || v < 0 ? -1 : sum + v;
}

static void known_i64(struct ll_json *j, const char *key, int64_t v)
{
	if (v < 0)
		ll_json_null(j, key);
	else
		ll_json_i64(j, key, v);
}

/*
 * "scheduling": how the readers were scheduled (rx_sched.c): max_stall_us,
 * the longest any reader was off the CPU while datagrams waited in its socket
 * (a lower bound; null for TCP, which has no receive stamps), and when it
 * ended (max_stall_at_ns, CLOCK_MONOTONIC); run_delay_us, their run-queue
 * delay; nivcsw and nvcsw, their involuntary and voluntary context switches
 * (sums over the readers' lives; null when the kernel does not say); calls,
 * their receive calls that returned datagrams (recvmmsg takes up to --batch
 * in one: received / calls is the batch a reader found waiting; null for TCP).
 */
static void scheduling(struct ll_json *j, const struct recv_cfg *c,
		       const struct reader *rds, unsigned n)
{
	uint64_t stall = 0, at = 0;
	int64_t delay = 0, inv = 0, vol = 0;
	uint64_t calls = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct ll_rx_sched *v = &rds[i].sched;

		if (v->max_stall_ns >= stall) {
			stall = v->max_stall_ns;
			at = v->max_stall_at_ns;
		}
		delay = add_known(delay, v->run_delay_ns);
		inv = add_known(inv, v->nivcsw);
		vol = add_known(vol, v->nvcsw);
		calls += v->calls;
	}
	ll_json_obj(j, "scheduling");
	if (c->proto == LL_UDP) {
		ll_json_dbl(j, "max_stall_us", stall / 1e3);
		ll_json_u64(j, "max_stall_at_ns", at);
	} else {
		ll_json_null(j, "max_stall_us");
		ll_json_null(j, "max_stall_at_ns");
	}
	if (delay < 0)
		ll_json_null(j, "run_delay_us");
	else
		ll_json_dbl(j, "run_delay_us", delay / 1e3);
	known_i64(j, "nivcsw", inv);
	known_i64(j, "nvcsw", vol);
	if (c->proto == LL_UDP)
		ll_json_u64(j, "calls", calls);
	else
		ll_json_null(j, "calls");
	ll_json_obj_end(j);
}

/* Datagrams without a header ("flow": null) have counts and times only. */
static void flow(struct ll_json *j, const struct ll_flow *f)
{
	ll_json_obj(j, NULL);
	if (f->foreign)
		ll_json_null(j, "flow");
	else
		ll_json_u64(j, "flow", f->id);
	ll_json_u64(j, "received", f->received);
	ll_json_u64(j, "bytes", f->bytes);
	if (f->any_seq) {
		ll_json_u64(j, "lost", f->lost);
		ll_json_u64(j, "duplicated", f->duplicated);
		ll_json_u64(j, "reordered", f->reordered);
		ll_json_u64(j, "max_seq", f->max_seq);
		ll_json_obj(j, "loss_runs");
		ll_json_u64(j, "count", f->runs);
		ll_json_dbl(j, "mean",
			    f->runs ? (double)f->lost / (double)f->runs : 0.0);
		ll_json_u64(j, "max", f->run_max);
		ll_json_obj_end(j);
	} else {
		ll_json_null(j, "lost");
		ll_json_null(j, "duplicated");
		ll_json_null(j, "reordered");
		ll_json_null(j, "max_seq");
		ll_json_null(j, "loss_runs");
	}
	latency(j, f);
	/* Datagrams received before their send stamp (flows.c): left out of
	 * latency_us, which is then not a one-way delay. */
	ll_json_u64(j, "latency_negative", f->lat_negative);
	ll_json_u64(j, "first_rx_ns", f->first_rx_ns);
	ll_json_u64(j, "last_rx_ns", f->last_rx_ns);
	ll_json_obj_end(j);
}

void ll_recv_report(FILE *f, const struct recv_cfg *c, struct reader *rds,
		    const struct recv_summary *s)
{
	uint64_t received = 0, bytes = 0, ovfl = 0, first = 0, last = 0;
	bool udp = c->proto == LL_UDP;
	char group[INET_ADDRSTRLEN];
	struct ll_json j;
	double elapsed;
	unsigned i;

	uint32_t lo = UINT32_MAX, hi = 0;

	for (i = 0; i < c->readers; i++) {
		const struct reader *rd = &rds[i];

		received += rd->received;
		bytes += rd->bytes;
		ovfl += (uint32_t)(rd->ovfl_last - rd->ovfl_first);
		if (rd->ovfl_seen) {
			lo = rd->ovfl_first < lo ? rd->ovfl_first : lo;
			hi = rd->ovfl_last > hi ? rd->ovfl_last : hi;
		}
		if (rd->first_rx_ns && (!first || rd->first_rx_ns < first))
			first = rd->first_rx_ns;
		if (rd->last_rx_ns > last)
			last = rd->last_rx_ns;
	}
	if (c->shared)
		ovfl = hi >= lo ? hi - lo : 0;
	elapsed = last > first ? (last - first) / 1e9 : 0.0;

	ll_json_init(&j, f);
	ll_json_obj(&j, NULL);
	ll_json_str(&j, "tool", "lanloss-recv");
	ll_json_u64(&j, "version", 1);
	ll_json_str(&j, "proto", udp ? "udp" : "tcp");
	ll_json_str(&j, "stamp_clock", ll_stamp_clock_name());
	ll_json_u64(&j, "port", c->port);
	if (c->has_group) {
		inet_ntop(AF_INET, &c->group, group, sizeof(group));
		ll_json_str(&j, "group", group);
	} else {
		ll_json_null(&j, "group");
	}
	/* TCP without --payload: messages cannot be told apart. */
	if (udp || c->payload)
		ll_json_u64(&j, "received", received);
	else
		ll_json_null(&j, "received");
	ll_json_u64(&j, "bytes", bytes);
	ll_json_arr(&j, "flows");
	for (i = 0; i < s->flows.n; i++)
		flow(&j, &s->flows.v[i]);
	ll_json_arr_end(&j);
	if (udp && c->rxq_ovfl)
		ll_json_u64(&j, "rxq_ovfl", ovfl);
	else
		ll_json_null(&j, "rxq_ovfl");
	if (s->socket_drops >= 0)
		ll_json_i64(&j, "socket_drops", s->socket_drops);
	else
		ll_json_null(&j, "socket_drops");
	ll_json_i64(&j, "rcvbuf_actual", s->rcvbuf_actual);
	ll_json_arr(&j, "readers");
	for (i = 0; i < c->readers; i++) {
		ll_json_obj(&j, NULL);
		ll_json_u64(&j, "received", rds[i].received);
		if (udp && c->rxq_ovfl)
			ll_json_u64(&j, "rxq_ovfl",
				    (uint32_t)(rds[i].ovfl_last -
					       rds[i].ovfl_first));
		else
			ll_json_null(&j, "rxq_ovfl");
		scheduling(&j, c, &rds[i], 1);
		ll_json_obj_end(&j);
	}
	ll_json_arr_end(&j);
	scheduling(&j, c, rds, c->readers);
	ll_json_dbl(&j, "elapsed_s", elapsed);
	ll_json_dbl(&j, "goodput_bps",
		    elapsed > 0 ? bytes * 8.0 / elapsed : 0.0);
	ll_json_str(&j, "stop_reason", s->stop_reason);
	ll_cpu_window_report(&j, s->window);
	ll_json_obj_end(&j);
	ll_json_done(&j);
}
