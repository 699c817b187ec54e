// SPDX-License-Identifier: GPL-2.0-only
/* json.c - streaming JSON writer (see json.h). */
#include "json.h"

#include <inttypes.h>
#include <math.h>

void ll_json_init(struct ll_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Comma, newline and indent before a member, then its key. */
static void member(struct ll_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void enter(struct ll_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < LL_JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void leave(struct ll_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void ll_json_obj(struct ll_json *j, const char *key)
{
	enter(j, key, '{');
}

void ll_json_obj_end(struct ll_json *j)
{
	leave(j, '}');
}

void ll_json_arr(struct ll_json *j, const char *key)
{
	enter(j, key, '[');
}

void ll_json_arr_end(struct ll_json *j)
{
	leave(j, ']');
}

void ll_json_u64(struct ll_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void ll_json_i64(struct ll_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void ll_json_dbl(struct ll_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void ll_json_str(struct ll_json *j, const char *key, const char *s)
{
	member(j, key);
	put_string(j->f, s);
}

void ll_json_bool(struct ll_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void ll_json_null(struct ll_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

int ll_json_done(struct ll_json *j)
{
	fputc('\n', j->f);
	if (fflush(j->f) != 0 || ferror(j->f))
		return -1;
	return 0;
}
