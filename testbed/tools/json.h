/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json.h - a streaming JSON writer for the reports. Every call takes the
 * member key (NULL inside arrays and for the top-level value); commas and
 * indentation are handled here. Non-finite doubles become null.
 */
#ifndef LL_JSON_H
#define LL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LL_JSON_DEPTH 16

struct ll_json {
	FILE *f;
	int depth;
	bool first[LL_JSON_DEPTH];
};

void ll_json_init(struct ll_json *j, FILE *f);
void ll_json_obj(struct ll_json *j, const char *key);
void ll_json_obj_end(struct ll_json *j);
void ll_json_arr(struct ll_json *j, const char *key);
void ll_json_arr_end(struct ll_json *j);
void ll_json_u64(struct ll_json *j, const char *key, uint64_t v);
void ll_json_i64(struct ll_json *j, const char *key, int64_t v);
void ll_json_dbl(struct ll_json *j, const char *key, double v);
void ll_json_str(struct ll_json *j, const char *key, const char *s);
void ll_json_bool(struct ll_json *j, const char *key, bool v);
void ll_json_null(struct ll_json *j, const char *key);
/* Finish the document (newline, flush); returns 0 or -1 on a write error. */
int ll_json_done(struct ll_json *j);

#endif /* LL_JSON_H */
