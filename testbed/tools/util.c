// SPDX-License-Identifier: GPL-2.0-only
/* util.c - error exits, errno names and the stop flag shared by both tools. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

const char *ll_prog = "lanloss";
volatile sig_atomic_t ll_stop;

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", ll_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ll_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(LL_EXIT_FAIL);
}

void ll_fail_errno(const char *what)
{
	ll_fail("%s: %s", what, strerror(errno));
}

void ll_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(LL_EXIT_USAGE);
}

void ll_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

const char *ll_errno_name(int err)
{
	static __thread char buf[16];
	const char *name = strerrorname_np(err); /* glibc >= 2.32 */

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static void on_stop(int sig)
{
	(void)sig;
	ll_stop = 1;
}

void ll_catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* a dead TCP peer shows up as EPIPE */
}

/* Die with the process that started us: after a kill -9 of the harness nothing else
 * would stop a tool before its --duration ends. The kernel sends SIGTERM, handled like
 * any stop request (report written, exit). A parent gone already: stop now. */
void ll_die_with_parent(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
		return;
	if (getppid() == 1)
		raise(SIGTERM);
}

void ll_errcount_add(struct ll_errcount *ec, int err, uint64_t n)
{
	int i;

	for (i = 0; i < ec->used; i++) {
		if (ec->err[i] == err) {
			ec->n[i] += n;
			return;
		}
	}
	if (ec->used == LL_MAX_ERRNOS)
		i = LL_MAX_ERRNOS - 1; /* pathological: lump into the last */
	else
		ec->err[ec->used++] = err;
	ec->n[i] += n;
}
