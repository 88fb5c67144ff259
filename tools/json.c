/* tools/json.c - streaming JSON writer: commas, indentation and escaping. */
#include "tools/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nesting grows as needed: a call tree nests two levels per frame, and
 * call paths can be thousands of frames deep. */
struct json {
	FILE *out;
	int pretty;
	int depth;
	int cap;
	int err;
	int after_key;                /* a key was written: no comma, no newline */
	unsigned char *n;             /* values written at each depth (0/1) */
	char *kind;                   /* '{' or '[' */
};

struct json *json__new(FILE *out, int pretty)
{
	struct json *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->out = out;
	j->pretty = pretty;
	j->cap = 64;
	j->n = calloc((size_t)j->cap, 1);
	j->kind = calloc((size_t)j->cap, 1);
	if (!j->n || !j->kind) {
		free(j->n);
		free(j->kind);
		free(j);
		return NULL;
	}
	return j;
}

int json__free(struct json *j)
{
	if (!j)
		return 0;
	int rc = 0;
	if (j->depth != 0 || j->err)
		rc = j->err ? -EIO : -EINVAL;
	if (j->pretty && !j->err)
		fputc('\n', j->out);
	if (fflush(j->out) != 0 || ferror(j->out))
		rc = -EIO;
	free(j->n);
	free(j->kind);
	free(j);
	return rc;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Before any value or key: comma and newline as needed. */
static void pre(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0) {
		if (j->n[j->depth])
			fputc(',', j->out);
		j->n[j->depth] = 1;
		indent(j);
	}
}

static void open(struct json *j, char c)
{
	pre(j);
	fputc(c, j->out);
	if (j->depth + 1 >= j->cap) {
		int cap = j->cap * 2;
		unsigned char *n = realloc(j->n, (size_t)cap);
		if (n)
			j->n = n;
		char *k = n ? realloc(j->kind, (size_t)cap) : NULL;
		if (!k) {
			j->err = 1;
			return;
		}
		j->kind = k;
		j->cap = cap;
	}
	j->depth++;
	j->n[j->depth] = 0;
	j->kind[j->depth] = c;
}

static void close_(struct json *j, char c)
{
	if (j->depth <= 0) {
		j->err = 1;
		return;
	}
	int had = j->n[j->depth];
	j->depth--;
	if (had)
		indent(j);
	fputc(c, j->out);
}

void json__obj_begin(struct json *j) { open(j, '{'); }
void json__obj_end(struct json *j) { close_(j, '}'); }
void json__arr_begin(struct json *j) { open(j, '['); }
void json__arr_end(struct json *j) { close_(j, ']'); }

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void json__key(struct json *j, const char *key)
{
	pre(j);
	put_string(j->out, key);
	fputs(j->pretty ? ": " : ":", j->out);
	j->after_key = 1;
}

void json__str(struct json *j, const char *s)
{
	pre(j);
	if (s)
		put_string(j->out, s);
	else
		fputs("null", j->out);
}

void json__num(struct json *j, double v)
{
	pre(j);
	if (!isfinite(v))
		fputs("null", j->out);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(j->out, "%.0f", v);
	else
		fprintf(j->out, "%.9g", v);
}

void json__int(struct json *j, int64_t v)
{
	pre(j);
	fprintf(j->out, "%" PRId64, v);
}

void json__uint(struct json *j, uint64_t v)
{
	pre(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json__bool(struct json *j, int v)
{
	pre(j);
	fputs(v ? "true" : "false", j->out);
}

void json__null(struct json *j)
{
	pre(j);
	fputs("null", j->out);
}

/* json__key_<kind>(j, key, v): json__key() then json__<kind>(). */
#define JSON_MEMBER(kind, type)                                               \
	void json__key_##kind(struct json *j, const char *key, type v)        \
	{                                                                     \
		json__key(j, key);                                            \
		json__##kind(j, v);                                           \
	}
JSON_MEMBER(str, const char *)
JSON_MEMBER(num, double)
JSON_MEMBER(int, int64_t)
JSON_MEMBER(uint, uint64_t)
JSON_MEMBER(bool, int)
