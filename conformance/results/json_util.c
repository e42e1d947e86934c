/* Strict JSON object reading (results.h). */
#include "results.h"

#include <stdio.h>
#include <string.h>

int cts_json_str(const json_t *o, const char *where, const char *key, char *out, size_t size,
                 char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) {
        snprintf(err, errlen, "%s\"%s\": %s", where, key, v ? "not a string" : "missing");
        return -1;
    }
    if (json_string_length(v) >= size) {
        snprintf(err, errlen, "%s\"%s\": longer than %zu bytes", where, key, size - 1);
        return -1;
    }
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

int cts_json_count(const json_t *o, const char *where, const char *key, long long *out,
                   char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        snprintf(err, errlen, "%s\"%s\": %s", where, key,
                 v ? "not a whole number >= 0" : "missing");
        return -1;
    }
    *out = json_integer_value(v);
    return 0;
}

int cts_json_bool(const json_t *o, const char *where, const char *key, bool *out, char *err,
                  size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_boolean(v)) {
        snprintf(err, errlen, "%s\"%s\": %s", where, key, v ? "not true or false" : "missing");
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

int cts_json_only_keys(const json_t *o, const char *where, const char *const *keys, char *err,
                       size_t errlen)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        bool known = false;
        for (const char *const *k = keys; *k && !known; k++) known = !strcmp(*k, key);
        if (!known) {
            snprintf(err, errlen, "%s\"%s\": not a key of the format", where, key);
            return -1;
        }
    }
    return 0;
}

json_t *cts_json_load_file(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    json_t *v = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!v) snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    return v;
}

int cts_json_dump_file(const json_t *v, FILE *f)
{
    if (json_dumpf(v, f, JSON_INDENT(2)) != 0) return -1;
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}
