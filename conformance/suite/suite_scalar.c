/* Typed reading of YAML scalars for the suite loader. Where a string or a name is meant, plain,
 * single- and double-quoted scalars are alike (other tools quote freely). Quoted scalars are
 * strings, never numbers or booleans: `'1'` where an integer is expected is an error that says
 * it is a quoted string. Explicit core tags are honoured (!!str makes a string; !!int, !!float,
 * !!bool, !!null type a scalar and must fit the field). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

bool cts_expect_kind(const cts_keyctx *k, const char *field, const cts_ynode *v,
                     cts_yn_kind kind)
{
    if (v->kind == kind)
        return true;
    ERR(v, field, "expected %s, got %s",
        kind == CTS_YN_SCALAR ? "a scalar" : kind == CTS_YN_SEQ ? "a list" : "a map",
        cts_yaml_kind_name(v));
    return false;
}

static const char *shown(const cts_ynode *v)
{
    return v->kind == CTS_YN_SCALAR ? v->text : v->kind == CTS_YN_SEQ ? "a list" : "a map";
}

static const char *tag_name(cts_yn_tag t)
{
    static const char *const names[] = {"", "!!str", "!!int", "!!float", "!!bool", "!!null"};
    return names[t];
}

/* "expected WANT, got ..." naming what the scalar is: a quoted or !!str scalar is a string
 * even when it reads like a number, and the message says so. */
static void refuse(const cts_keyctx *k, const char *field, const cts_ynode *v, const char *want)
{
    if (v->kind != CTS_YN_SCALAR)
        ERR(v, field, "expected %s, got %s", want, shown(v));
    else if (v->tag == CTS_YT_STR)
        ERR(v, field, "expected %s, got '%s' tagged !!str, a string (drop the tag)", want, v->text);
    else if (!v->plain)
        ERR(v, field, "expected %s, got the quoted string '%s' (write it without quotes)", want,
            v->text);
    else if (v->tag != CTS_YT_NONE)
        ERR(v, field, "expected %s, got '%s' tagged %s", want, v->text, tag_name(v->tag));
    else
        ERR(v, field, "expected %s, got '%s'", want, v->text);
}

/* An unquoted scalar that is untagged or carries one of the allowed core tags. */
static bool typed(const cts_ynode *v, cts_yn_tag a, cts_yn_tag b)
{
    return v->kind == CTS_YN_SCALAR && v->plain &&
           (v->tag == CTS_YT_NONE || v->tag == a || v->tag == b);
}

bool cts_scalar_int(const cts_ynode *v, int64_t *out)
{
    if (!typed(v, CTS_YT_INT, CTS_YT_INT) || !v->text[0])
        return false;
    char *end;
    errno = 0;
    long long x = strtoll(v->text, &end, 10);
    if (*end || errno)
        return false;
    *out = x;
    return true;
}

const char *cts_scalar_name(const cts_ynode *v)
{
    if (v->kind != CTS_YN_SCALAR || cts_yaml_is_null(v) ||
        (v->tag != CTS_YT_NONE && v->tag != CTS_YT_STR))
        return NULL;
    return v->text;
}

bool cts_read_int(const cts_keyctx *k, const char *field, const cts_ynode *v, int64_t *out)
{
    if (cts_scalar_int(v, out))
        return true;
    refuse(k, field, v, "an integer");
    return false;
}

bool cts_read_bool(const cts_keyctx *k, const char *field, const cts_ynode *v, bool *out)
{
    if (typed(v, CTS_YT_BOOL, CTS_YT_BOOL)) {
        if (!strcmp(v->text, "true") || !strcmp(v->text, "True") || !strcmp(v->text, "TRUE")) {
            *out = true;
            return true;
        }
        if (!strcmp(v->text, "false") || !strcmp(v->text, "False") ||
            !strcmp(v->text, "FALSE")) {
            *out = false;
            return true;
        }
    }
    refuse(k, field, v, "true or false");
    return false;
}

bool cts_read_double(const cts_keyctx *k, const char *field, const cts_ynode *v, double *out)
{
    if (typed(v, CTS_YT_INT, CTS_YT_FLOAT) && v->text[0]) {
        const char *s = v->text;
        double sign = 1;
        if (*s == '-' || *s == '+')
            sign = *s++ == '-' ? -1 : 1;
        if (*s == '.' && (!strcasecmp(s, ".inf"))) {
            *out = sign * INFINITY;
            return true;
        }
        if (!strcasecmp(s, ".nan") || !strcasecmp(s, "nan")) {
            *out = sign < 0 ? -NAN : NAN;
            return true;
        }
        char *end;
        double x = strtod(v->text, &end);
        if (*end == 0) {
            *out = x;
            return true;
        }
    }
    refuse(k, field, v, "a number");
    return false;
}

bool cts_read_string(const cts_keyctx *k, const char *field, const cts_ynode *v, const char **out)
{
    if (v->kind == CTS_YN_SCALAR && !cts_yaml_is_null(v)) {
        *out = v->text;
        return true;
    }
    ERR(v, field, "expected a string, got %s", v->kind == CTS_YN_SCALAR ? "null" : shown(v));
    return false;
}

bool cts_read_doubles(const cts_keyctx *k, const char *field, const cts_ynode *v, double **out,
                      size_t *n)
{
    *out = NULL;
    *n = 0;
    if (v->kind == CTS_YN_SCALAR) {
        double x;
        if (!cts_read_double(k, field, v, &x))
            return false;
        *out = malloc(sizeof **out);
        if (!*out)
            abort();
        **out = x;
        *n = 1;
        return true;
    }
    if (!cts_expect_kind(k, field, v, CTS_YN_SEQ))
        return false;
    if (v->n == 0) {
        ERR(v, field, "expected at least one number");
        return false;
    }
    double *a = malloc(v->n * sizeof *a);
    if (!a)
        abort();
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        char f[256];
        cts_fmt(f, sizeof f, "%s[%zu]", field, i);
        ok &= cts_read_double(k, f, v->items[i], &a[i]);
    }
    if (!ok) {
        free(a);
        return false;
    }
    *out = a;
    *n = v->n;
    return true;
}

static const struct {
    const char *name;
    ref_dtype dt;
} dtypes[] = {
    {"float32", REF_DT_FLOAT},   {"float16", REF_DT_FLOAT16}, {"bfloat16", REF_DT_BF16},
    {"float64", REF_DT_DOUBLE},  {"int8", REF_DT_INT8},       {"int16", REF_DT_INT16},
    {"int32", REF_DT_INT32},     {"int64", REF_DT_INT64},     {"uint8", REF_DT_UINT8},
    {"uint16", REF_DT_UINT16},   {"uint32", REF_DT_UINT32},   {"uint64", REF_DT_UINT64},
    {"bool", REF_DT_BOOL},       {"complex64", REF_DT_COMPLEX64},
    {"complex128", REF_DT_COMPLEX128}, {"undefined", REF_DT_UNDEFINED},
    /* aliases */
    {"float", REF_DT_FLOAT},     {"double", REF_DT_DOUBLE},   {"bf16", REF_DT_BF16},
};

bool cts_dtype_from_name(const char *s, ref_dtype *out)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(s, dtypes[i].name)) {
            *out = dtypes[i].dt;
            return true;
        }
    return false;
}

const char *cts_dtype_yaml_name(ref_dtype dt)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].dt == dt)
            return dtypes[i].name;
    return "?";
}

bool cts_read_dtype(const cts_keyctx *k, const char *field, const cts_ynode *v, ref_dtype *out)
{
    const char *s;
    if (!cts_read_string(k, field, v, &s))
        return false;
    if (cts_dtype_from_name(s, out))
        return true;
    ERR(v, field,
        "unknown dtype '%s' (float32, float16, bfloat16, float64, int8, int16, int32, int64, "
        "uint8, uint16, uint32, uint64, bool, complex64, complex128, undefined)",
        s);
    return false;
}

bool cts_read_product(const cts_keyctx *k, const char *field, const cts_ynode *v,
                      ref_product *out)
{
    const char *s;
    if (!cts_read_string(k, field, v, &s))
        return false;
    if (ref_product_from_id(s, out) == 0)
        return true;
    ERR(v, field,
        "unknown product '%s' (ascend910, ascend910b, ascend910_93, ascend310p, ascend310b, "
        "ascend950)",
        s);
    return false;
}
