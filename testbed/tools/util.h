/* SPDX-License-Identifier: GPL-2.0-only */
/* util.h - error exits, errno names and the stop flag shared by both tools. */
#ifndef LL_UTIL_H
#define LL_UTIL_H

#include <signal.h>
#include <stdint.h>

/* Exit statuses: 0 done (also after SIGINT/SIGTERM), 1 run-time failure,
 * 2 bad command line (nothing was sent or bound). */
#define LL_EXIT_FAIL 1
#define LL_EXIT_USAGE 2

extern const char *ll_prog;

/* Set by SIGINT/SIGTERM; the main loops poll it. */
extern volatile sig_atomic_t ll_stop;

void ll_fail(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
void ll_fail_errno(const char *what) __attribute__((noreturn));
void ll_usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
void ll_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "ENOBUFS" for ENOBUFS; "E123" when glibc has no name. */
const char *ll_errno_name(int err);

/* SIGINT/SIGTERM set ll_stop; no SA_RESTART, so blocking calls return EINTR. */
void ll_catch_stop_signals(void);
void ll_die_with_parent(void);

/* Counts of failed sends keyed by errno. */
#define LL_MAX_ERRNOS 16
struct ll_errcount {
	int err[LL_MAX_ERRNOS];
	uint64_t n[LL_MAX_ERRNOS];
	int used;
};

void ll_errcount_add(struct ll_errcount *ec, int err, uint64_t n);

#endif /* LL_UTIL_H */
