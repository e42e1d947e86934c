/* The value keys of a case: the table of the keys every op has (the tensors' in
 * suite_keys_tensor.c), an op's <tensor>_shape keys and parameters from its driver's tables.
 * Keys not of the suite's op are errors. */
#include "suite_keys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef bool (*key_fn)(const cts_keyctx *, const char *, const cts_ynode *, cts_builder *,
                       int arg);

static bool k_deterministic(const cts_keyctx *k, const char *f, const cts_ynode *v,
                            cts_builder *b, int a)
{
    (void)a;
    return cts_read_bool(k, f, v, &b->c.deterministic);
}


static bool k_expect(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                     int a)
{
    (void)a;
    if (!cts_expect_kind(k, f, v, CTS_YN_MAP))
        return false;
    bool ok = true;
    b->c.expect_status_model = true;
    for (int s = 0; s < CTS_MAX_TENSORS; s++) {
        free(b->c.expect_values[s].values);
        memset(&b->c.expect_values[s], 0, sizeof b->c.expect_values[s]);
    }
    for (size_t i = 0; i < v->n; i += 2) {
        const char *key = v->items[i]->text;
        const cts_ynode *val = v->items[i + 1];
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s.%s", f, key);
        if (!strcmp(key, "status")) {
            if (val->kind == CTS_YN_SCALAR && !strcmp(val->text, "model"))
                continue;
            int64_t x;
            if (!cts_read_int(k, ff, val, &x)) {
                ok = false;
            } else if (x < INT32_MIN || x > INT32_MAX) {
                KEY_ERR(val, ff, "status %lld is not an aclnnStatus (int32)", (long long)x);
                ok = false;
            } else {
                b->c.expect_status_model = false;
                b->c.expect_status = (int32_t)x;
            }
        } else if (!strcmp(key, "values")) {
            if (!cts_expect_kind(k, ff, val, CTS_YN_MAP)) {
                ok = false;
                continue;
            }
            for (size_t j = 0; j < val->n; j += 2) {
                char fff[300];
                cts_fmt(fff, sizeof fff, "%s.%s", ff, val->items[j]->text);
                int s = cts_read_slot(k, fff, val->items[j], true, false);
                cts_expected_values *e = s >= 0 ? &b->c.expect_values[s] : NULL;
                if (!e || !cts_read_doubles(k, fff, val->items[j + 1], &e->values, &e->nvalues)) {
                    ok = false;
                    continue;
                }
                e->any = true;
            }
        } else {
            KEY_ERR(v->items[i], ff, "unknown key (status, values)");
            ok = false;
        }
    }
    return ok;
}

static bool k_tolerance(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                        int a)
{
    (void)a;
    cts_tolerance t;
    memset(&t, 0, sizeof t);
    /* structure is checked now (as float32, numerics value 0); per-dtype entries at finish */
    bool ok = cts_tolerance_resolve(k, f, v, REF_DT_FLOAT, 0, &t);
    free((void *)t.name);
    b->tolerance = v;
    cts_set_str(&b->tolerance_field, f);
    return ok;
}

/* quick: true|false, or the products on which the case belongs to the quick subset */
static bool k_quick(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    b->quick_list = false;
    b->quick_products = 0;
    if (v->kind != CTS_YN_SEQ)
        return cts_read_bool(k, f, v, &b->c.quick);
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s[%zu]", f, i);
        ref_product p;
        if (cts_read_product(k, ff, v->items[i], &p))
            b->quick_products |= 1u << p;
        else
            ok = false;
    }
    b->quick_list = true;
    b->c.quick = false;
    return ok;
}

static bool k_repeat(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                     int a)
{
    (void)a;
    int64_t x;
    if (!cts_read_int(k, f, v, &x))
        return false;
    if (x < 1 || x > 1000) {
        KEY_ERR(v, f, "repeat must be in 1..1000, got %lld", (long long)x);
        return false;
    }
    b->c.repeat = (int)x;
    return true;
}

static bool k_unjudged(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                       int a)
{
    (void)a;
    int64_t x;
    if (!cts_read_int(k, f, v, &x))
        return false;
    if (x < 0) {
        KEY_ERR(v, f, "unjudged must be 0 or more (elements left unjudged), got %lld", (long long)x);
        return false;
    }
    b->c.max_unjudged = x;
    return true;
}

/* waiver.status: the statuses a waiver accepts besides the expected one. */
static bool read_waiver_status(const cts_keyctx *k, const char *ff, const cts_ynode *val,
                               cts_builder *b)
{
    if (!cts_expect_kind(k, ff, val, CTS_YN_SEQ))
        return false;
    if (val->n > 4) {
        KEY_ERR(val, ff, "at most 4 statuses");
        return false;
    }
    bool ok = true;
    for (size_t j = 0; j < val->n; j++) {
        char fff[300];
        cts_fmt(fff, sizeof fff, "%s[%zu]", ff, j);
        int64_t x;
        if (!cts_read_int(k, fff, val->items[j], &x)) {
            ok = false;
            continue;
        }
        b->c.waiver_status[b->c.nwaiver_status++] = (int32_t)x;
    }
    return ok;
}

/* waiver.expires: a real calendar date written YYYY-MM-DD (compared as text with today's). */
static bool read_waiver_date(const cts_keyctx *k, const char *ff, const cts_ynode *val,
                             const char **out)
{
    if (!cts_read_string(k, ff, val, out))
        return false;
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *t = *out;
    bool ok = strlen(t) == 10 && t[4] == '-' && t[7] == '-';
    for (int i = 0; ok && i < 10; i++)
        ok = i == 4 || i == 7 || (t[i] >= '0' && t[i] <= '9');
    int y = ok ? atoi(t) : 0, m = ok ? atoi(t + 5) : 0, d = ok ? atoi(t + 8) : 0;
    ok = ok && m >= 1 && m <= 12 && d >= 1 && d <= mdays[m - 1] &&
         (m != 2 || d < 29 || (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
    if (!ok)
        KEY_ERR(val, ff, "'%s' is not a date written YYYY-MM-DD", *out);
    return ok;
}

/* waiver: {reason, status, tracking, owner, expires}; only the reason is required. */
static bool k_waiver(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                     int a)
{
    (void)a;
    if (!cts_expect_kind(k, f, v, CTS_YN_MAP))
        return false;
    bool ok = true;
    const char *reason = NULL, *tracking = NULL, *owner = NULL, *expires = NULL;
    b->c.nwaiver_status = 0;
    for (size_t i = 0; i < v->n; i += 2) {
        const char *key = v->items[i]->text;
        const cts_ynode *val = v->items[i + 1];
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s.%s", f, key);
        if (!strcmp(key, "reason")) {
            ok &= cts_read_string(k, ff, val, &reason);
        } else if (!strcmp(key, "tracking")) {
            ok &= cts_read_string(k, ff, val, &tracking);
        } else if (!strcmp(key, "owner")) {
            ok &= cts_read_string(k, ff, val, &owner);
        } else if (!strcmp(key, "expires")) {
            ok &= read_waiver_date(k, ff, val, &expires);
        } else if (!strcmp(key, "status")) {
            ok &= read_waiver_status(k, ff, val, b);
        } else {
            KEY_ERR(v->items[i], ff, "unknown key (reason, tracking, owner, expires, status)");
            ok = false;
        }
    }
    if (!reason && ok) {
        KEY_ERR(v, f, "a waiver needs a reason");
        ok = false;
    }
    cts_set_str(&b->c.waiver, ok ? reason : NULL);
    cts_set_str(&b->c.waiver_tracking, ok ? tracking : NULL);
    cts_set_str(&b->c.waiver_owner, ok ? owner : NULL);
    cts_set_str(&b->c.waiver_expires, ok ? expires : NULL);
    return ok;
}

static bool k_spec(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    const char *s;
    if (!cts_read_string(k, f, v, &s))
        return false;
    if (ref_spec_from_name(s, &b->c.spec) != 0) {
        KEY_ERR(v, f, "unknown spec '%s' (doc, vendor@9.2, vendor@9.1, vendor@9.0, vendor@8.5; "
                "vendor is vendor@9.2, vendor-old vendor@8.5)", s);
        return false;
    }
    b->c.spec_fixed = true; /* written for one contract: runs only under it */
    return true;
}

static bool k_product(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                      int a)
{
    (void)a;
    bool ok = true;
    if (v->kind == CTS_YN_SCALAR) {
        ref_product p;
        if (strcmp(v->text, "all") != 0)
            ok = cts_read_product(k, f, v, &p);
    } else if (cts_expect_kind(k, f, v, CTS_YN_SEQ)) {
        if (v->n == 0) {
            KEY_ERR(v, f, "empty product list");
            ok = false;
        }
        for (size_t i = 0; i < v->n; i++) {
            char ff[256];
            cts_fmt(ff, sizeof ff, "%s[%zu]", f, i);
            ref_product p;
            ok &= cts_read_product(k, ff, v->items[i], &p);
        }
    } else {
        ok = false;
    }
    b->product = v;
    cts_set_str(&b->product_field, f);
    return ok;
}

/* The keys every op's cases have; besides them, <tensor>_shape for each tensor of the op and
 * the op's parameters. */
static const struct {
    const char *key;
    key_fn fn;
    int arg;
} keys[] = {
    {"dtype", cts_key_dtype, 0},
    {"dtypes", cts_key_dtypes, 0},
    {"format", cts_key_format, 0},
    {"formats", cts_key_formats, 0},
    {"views", cts_key_views, 0},
    {"null", cts_key_null, 0},
    {"data", cts_key_data, 0},
    {"expect", k_expect, 0},
    {"tolerance", k_tolerance, 0},
    {"deterministic", k_deterministic, 0},
    {"repeat", k_repeat, 0},
    {"waiver", k_waiver, 0},
    {"unjudged", k_unjudged, 0},
    {"quick", k_quick, 0},
    {"spec", k_spec, 0},
    {"product", k_product, 0},
};

#define NKEYS (sizeof keys / sizeof keys[0])

static int generic_key(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, key))
            return (int)i;
    return -1;
}

/* The slot of a "<tensor>_shape" key of op, or -1. */
static int shape_key(const cts_op_driver *op, const char *key)
{
    size_t n = strlen(key);
    if (n <= 6 || strcmp(key + n - 6, "_shape") != 0)
        return -1;
    for (int s = 0; s < op->ntensors; s++)
        if (strlen(op->tensors[s].name) == n - 6 && !strncmp(op->tensors[s].name, key, n - 6))
            return s;
    return -1;
}

bool cts_key_known(const cts_op_driver *op, const char *key)
{
    return generic_key(key) >= 0 || shape_key(op, key) >= 0 || cts_op_param_index(op, key) >= 0;
}

const char *cts_key_other_op(const cts_op_driver *op, const char *key)
{
    if (cts_key_known(op, key))
        return NULL;
    for (int i = 0; i < cts_nops; i++)
        if (cts_ops[i] != op && cts_key_known(cts_ops[i], key))
            return cts_ops[i]->name;
    return NULL;
}

void cts_builder_init(cts_builder *b, const cts_op_driver *op)
{
    memset(b, 0, sizeof *b);
    cts_case_init_op(&b->c, op);
}

bool cts_key_apply(const cts_keyctx *k, const char *key, const char *field, const cts_ynode *v,
                   cts_builder *b)
{
    int g = generic_key(key), s = shape_key(k->op, key), p = cts_op_param_index(k->op, key);
    if (g >= 0)
        return keys[g].fn(k, field, v, b, keys[g].arg);
    if (s >= 0)
        return cts_key_shape(k, field, v, b, s);
    if (p < 0)
        return false;
    b->param_set[p] = true;
    return cts_read_param(k, field, v, &k->op->params[p], &b->c.param[p]);
}
