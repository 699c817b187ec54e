// SPDX-License-Identifier: GPL-2.0-only
/*
 * send_report.c - lanloss-send's JSON report. Keys are a contract with the
 * Python harness (testbed/); add none without telling it.
 *
 * Accounting: "sent" and "bytes" count only datagrams the kernel accepted.
 * A send that failed (ENOBUFS, EAGAIN, ECONNREFUSED, ...) is counted under
 * its errno name in "send_errors", is not retried and does not consume a
 * sequence number, so every seq gap the receiver sees is loss after the
 * sending socket.
 */
#include <arpa/inet.h>

#include "send.h"
#include "clock.h"
#include "json.h"
#include "wire.h"

/* Lateness of each send call behind its deadline; nulls when unpaced. */
static void pacing(struct ll_json *j, const struct send_res *r, bool paced)
{
	bool have = paced && r->late.n;

	ll_json_obj(j, "pacing");
	if (have) {
		ll_json_dbl(j, "mean_late_us", ll_hist_mean(&r->late) / 1e3);
		ll_json_dbl(j, "p99_late_us",
			    ll_hist_quantile(&r->late, 0.99) / 1e3);
		ll_json_dbl(j, "max_late_us", r->late.max / 1e3);
	} else {
		ll_json_null(j, "mean_late_us");
		ll_json_null(j, "p99_late_us");
		ll_json_null(j, "max_late_us");
	}
	ll_json_obj_end(j);
}

void ll_send_report(FILE *f, const struct send_cfg *c, const struct send_res *r)
{
	double elapsed = r->sent ? (r->end_ns - r->start_ns) / 1e9 : 0.0;
	char dst[INET_ADDRSTRLEN];
	struct ll_json j;
	int i;

	inet_ntop(AF_INET, &c->dst, dst, sizeof(dst));
	ll_json_init(&j, f);
	ll_json_obj(&j, NULL);
	ll_json_str(&j, "tool", "lanloss-send");
	ll_json_u64(&j, "version", 1);
	ll_json_str(&j, "proto", c->proto == LL_UDP ? "udp" : "tcp");
	ll_json_str(&j, "stamp_clock", ll_stamp_clock_name());
	ll_json_str(&j, "dst", dst);
	ll_json_u64(&j, "port", c->port);
	ll_json_u64(&j, "payload", c->payload);
	if (c->rate)
		ll_json_u64(&j, "rate_bps", c->rate);
	else
		ll_json_str(&j, "rate_bps", "max");
	ll_json_str(&j, "pattern", c->pattern);
	ll_json_u64(&j, "start_burst", c->start_burst);
	ll_json_u64(&j, "flow", c->flow);
	ll_json_u64(&j, "header_bytes", ll_hdr_bytes(c->payload));
	ll_json_u64(&j, "sent", r->sent);
	ll_json_u64(&j, "bytes", r->bytes);
	ll_json_obj(&j, "send_errors");
	for (i = 0; i < r->errors.used; i++)
		ll_json_u64(&j, ll_errno_name(r->errors.err[i]),
			    r->errors.n[i]);
	ll_json_obj_end(&j);
	ll_json_dbl(&j, "elapsed_s", elapsed);
	ll_json_dbl(&j, "achieved_bps",
		    elapsed > 0 ? r->bytes * 8.0 / elapsed : 0.0);
	ll_json_dbl(&j, "achieved_pps", elapsed > 0 ? r->sent / elapsed : 0.0);
	pacing(&j, r, c->rate != 0);
	ll_json_bool(&j, "gso", r->gso_used);
	ll_json_str(&j, "sched", r->rt.sched);
	if (r->rt.note)
		ll_json_str(&j, "sched_note", r->rt.note);
	else
		ll_json_null(&j, "sched_note");
	ll_json_u64(&j, "batch", c->batch);
	ll_json_i64(&j, "sndbuf_actual", r->sndbuf_actual);
	ll_json_u64(&j, "start_ns", r->start_ns);
	ll_json_u64(&j, "end_ns", r->end_ns);
	ll_json_obj_end(&j);
	ll_json_done(&j);
}
