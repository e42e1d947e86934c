/* Strict reading of JSON objects aclcts wrote (jansson): required keys of the right type and
 * size, and no key the format does not define, each failure named in err. */
#ifndef ACLCTS_CONFORMANCE_JSON_UTIL_H_
#define ACLCTS_CONFORMANCE_JSON_UTIL_H_

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* The string at key into out (size bytes with the NUL); 0, or -1 naming where.key. */
int cts_json_str(const json_t *o, const char *where, const char *key, char *out, size_t size,
                 char *err, size_t errlen);
/* A whole number >= 0 at key. */
int cts_json_count(const json_t *o, const char *where, const char *key, long long *out,
                   char *err, size_t errlen);
int cts_json_bool(const json_t *o, const char *where, const char *key, bool *out, char *err,
                  size_t errlen);
/* -1 naming the first key of o that is not one of keys (NULL-terminated). */
int cts_json_only_keys(const json_t *o, const char *where, const char *const *keys, char *err,
                       size_t errlen);
/* Loads a JSON file as jansson reads it with duplicate keys refused; NULL with a message
 * naming path:line:column. */
json_t *cts_json_load_file(const char *path, char *err, size_t errlen);
/* Writes v (2-space indent, keys in insertion order) and a newline; 0, or -1 (errno). */
int cts_json_dump_file(const json_t *v, FILE *f);

#endif
