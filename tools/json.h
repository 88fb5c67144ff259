/* tools/json.h - a small streaming JSON writer (commas and escaping handled). */
#ifndef HYPROF_TOOLS_JSON_H
#define HYPROF_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

struct json;

/* pretty: indent with two spaces.  Returns NULL on allocation failure. */
struct json *json__new(FILE *out, int pretty);
/* Returns 0, or -EIO if a write failed, -EINVAL if objects were left open. */
int json__free(struct json *j);
void json__obj_begin(struct json *j);
void json__obj_end(struct json *j);
void json__arr_begin(struct json *j);
void json__arr_end(struct json *j);
void json__key(struct json *j, const char *key);
void json__str(struct json *j, const char *s);       /* NULL -> null */
void json__num(struct json *j, double v);             /* NaN/inf -> null */
void json__int(struct json *j, int64_t v);
void json__uint(struct json *j, uint64_t v);
void json__bool(struct json *j, int v);
void json__null(struct json *j);
/* A member: json__key() then the value. */
void json__key_str(struct json *j, const char *key, const char *s);
void json__key_num(struct json *j, const char *key, double v);
void json__key_int(struct json *j, const char *key, int64_t v);
void json__key_uint(struct json *j, const char *key, uint64_t v);
void json__key_bool(struct json *j, const char *key, int v);

#endif
