/* The value keys of a case: one reader per key, each checking type and range and storing into
 * the case under construction. The keys every op has are here; an op's tensors (their shapes)
 * and parameters come from its driver's tables. Keys not of the suite's op are errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

/* ---- tensor slots ---- */

static void tensor_list(const cts_op_driver *op, bool outputs_only, bool inputs_only, char *buf,
                        size_t n)
{
    buf[0] = 0;
    for (int i = 0; i < op->ntensors; i++) {
        bool out = op->tensors[i].is_output;
        if ((outputs_only && !out) || (inputs_only && out))
            continue;
        size_t l = strlen(buf);
        cts_fmt(buf + l, n - l, "%s%s", l ? ", " : "", op->tensors[i].name);
    }
}

/* Slot named by a map key, with an error naming the choices. */
static int read_slot(const cts_keyctx *k, const char *field, const cts_ynode *key, bool outputs,
                     bool inputs)
{
    int s = cts_op_tensor_slot(k->op, key->text);
    if (s >= 0 && !(outputs && !k->op->tensors[s].is_output) &&
        !(inputs && k->op->tensors[s].is_output))
        return s;
    char names[128];
    tensor_list(k->op, outputs, inputs, names, sizeof names);
    ERR(key, field, "unknown %s '%s' (%s)",
        outputs ? "output" : inputs ? "input tensor" : "tensor", key->text, names);
    return -1;
}

/* ---- small readers ---- */

/* A list of integers; |value| <= limit (shapes and strides: 2^40, far beyond any tensor this
 * harness allocates; operator parameters: the whole int64 range the API takes). */
static bool read_ints(const cts_keyctx *k, const char *field, const cts_ynode *v, int *rank,
                      int64_t *dims, int64_t limit)
{
    if (!cts_expect_kind(k, field, v, CTS_YN_SEQ))
        return false;
    if (v->n > CTS_MAX_DIMS) {
        ERR(v, field, "at most %d dimensions, got %zu", CTS_MAX_DIMS, v->n);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        char f[256];
        cts_fmt(f, sizeof f, "%s[%zu]", field, i);
        ok &= cts_read_int(k, f, v->items[i], &dims[i]);
        if (ok && limit < INT64_MAX && (dims[i] > limit || dims[i] < -limit)) {
            ERR(v->items[i], f, "dimension %lld is out of range", (long long)dims[i]);
            ok = false;
        }
    }
    *rank = (int)v->n;
    return ok;
}

static bool read_dims(const cts_keyctx *k, const char *field, const cts_ynode *v, int *rank,
                      int64_t *dims)
{
    return read_ints(k, field, v, rank, dims, 1LL << 40);
}

static bool read_int_array(const cts_keyctx *k, const char *field, const cts_ynode *v,
                           cts_param *a)
{
    memset(a, 0, sizeof *a);
    if (cts_yaml_is_null(v)) {
        a->null = true;
        return true;
    }
    return read_ints(k, field, v, &a->len, a->v, INT64_MAX);
}

static const struct {
    const char *name;
    ref_format f;
} formats[] = {{"nchw", REF_FMT_NCHW},       {"nhwc", REF_FMT_NHWC},
               {"nd", REF_FMT_ND},           {"nc1hwc0", REF_FMT_NC1HWC0},
               {"fractal_z", REF_FMT_FRACTAL_Z}, {"ncl", REF_FMT_NCL},
               {"undefined", REF_FMT_UNDEFINED}};

/* For enum readers, which take a name or an unquoted integer: why a quoted "1" was refused. */
static const char *quoted_number_note(const cts_ynode *v)
{
    int64_t x;
    cts_ynode bare = *v;
    bare.plain = true;
    bare.tag = CTS_YT_NONE;
    return v->kind == CTS_YN_SCALAR && !v->plain && cts_scalar_int(&bare, &x)
               ? "; a quoted number is a string: write it without quotes"
               : "";
}

static bool read_format(const cts_keyctx *k, const char *field, const cts_ynode *v,
                        ref_format *out)
{
    const char *name = cts_scalar_name(v);
    for (size_t i = 0; name && i < sizeof formats / sizeof formats[0]; i++)
        if (!strcmp(name, formats[i].name)) {
            *out = formats[i].f;
            return true;
        }
    int64_t x;
    if (cts_scalar_int(v, &x) && x >= -1 && x <= 255) {
        *out = (ref_format)x;
        return true;
    }
    ERR(v, field, "unknown format '%s' (nchw, nhwc, nd, nc1hwc0, fractal_z, ncl, undefined, or an "
        "aclFormat integer -1..255%s)", v->kind == CTS_YN_SCALAR ? v->text : "?",
        quoted_number_note(v));
    return false;
}

static bool read_named_int(const cts_keyctx *k, const char *field, const cts_ynode *v,
                           const char *const *names, int nnames, int64_t *out)
{
    const char *name = cts_scalar_name(v);
    for (int i = 0; name && i < nnames; i++)
        if (!strcmp(name, names[i])) {
            *out = i;
            return true;
        }
    if (cts_scalar_int(v, out))
        return true;
    char list[128] = "";
    for (int i = 0; i < nnames; i++) {
        size_t l = strlen(list);
        cts_fmt(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
    }
    ERR(v, field, "unknown value '%s' (%s, or an integer%s)",
        v->kind == CTS_YN_SCALAR ? v->text : "?", list, quoted_number_note(v));
    return false;
}

static void set_str(const char **dst, const char *src)
{
    free((void *)*dst);
    *dst = NULL;
    if (src) {
        *dst = strdup(src);
        if (!*dst)
            abort();
    }
}

static bool read_gen(const cts_keyctx *k, const char *field, const cts_ynode *v,
                     cts_datagen *g)
{
    free(g->values);
    memset(g, 0, sizeof *g);
    const char *simple_name = cts_scalar_name(v);
    if (simple_name) {
        static const struct {
            const char *n;
            cts_gen_kind k;
        } simple[] = {{"ones", CTS_GEN_ONES}, {"zeros", CTS_GEN_ZEROS},
                      {"arange", CTS_GEN_ARANGE}, {"special", CTS_GEN_SPECIAL}};
        for (size_t i = 0; i < 4; i++)
            if (!strcmp(simple_name, simple[i].n)) {
                g->kind = simple[i].k;
                g->a = 0;
                g->b = 1;  /* arange: start 0, step 1 */
                return true;
            }
    }
    if (v->kind == CTS_YN_MAP && v->n == 2) {
        const char *name = v->items[0]->text;
        const cts_ynode *arg = v->items[1];
        char f[256];
        cts_fmt(f, sizeof f, "%s.%s", field, name);
        if (!strcmp(name, "values")) {
            g->kind = CTS_GEN_VALUES;
            return cts_read_doubles(k, f, arg, &g->values, &g->nvalues);
        }
        cts_gen_kind kind;
        if (!strcmp(name, "uniform"))
            kind = CTS_GEN_UNIFORM;
        else if (!strcmp(name, "normal"))
            kind = CTS_GEN_NORMAL;
        else if (!strcmp(name, "int"))
            kind = CTS_GEN_INT;
        else if (!strcmp(name, "arange"))
            kind = CTS_GEN_ARANGE;
        else
            goto bad;
        if (arg->kind != CTS_YN_SEQ || arg->n != 2) {
            ERR(arg, f, "expected [%s]",
                kind == CTS_GEN_NORMAL ? "mean, std" : kind == CTS_GEN_ARANGE ? "start, step"
                                                                              : "lo, hi");
            return false;
        }
        char f0[256], f1[256];
        cts_fmt(f0, sizeof f0, "%s[0]", f);
        cts_fmt(f1, sizeof f1, "%s[1]", f);
        /* Read both so that both errors are reported. */
        bool ok0 = cts_read_double(k, f0, arg->items[0], &g->a);
        bool ok1 = cts_read_double(k, f1, arg->items[1], &g->b);
        if (!ok0 || !ok1)
            return false;
        g->kind = kind;
        if (!isfinite(g->a) || !isfinite(g->b)) {
            ERR(arg, f, "arguments must be finite numbers (got %g, %g)", g->a, g->b);
            return false;
        }
        if (kind == CTS_GEN_INT && (fabs(g->a) > 0x1p53 || fabs(g->b) > 0x1p53)) {
            ERR(arg, f, "bounds must lie within +-2^53 (9007199254740992): data are doubles");
            return false;
        }
        if (kind == CTS_GEN_NORMAL && !(g->b >= 0)) {
            ERR(arg->items[1], f1, "standard deviation must be >= 0");
            return false;
        }
        if ((kind == CTS_GEN_UNIFORM || kind == CTS_GEN_INT) && !(g->a <= g->b)) {
            ERR(arg, f, "lo must be <= hi");
            return false;
        }
        if (kind == CTS_GEN_INT && (g->a != (double)(int64_t)g->a ||
                                    g->b != (double)(int64_t)g->b)) {
            ERR(arg, f, "bounds must be integers");
            return false;
        }
        return true;
    }
bad:
    ERR(v, field,
        "unknown generator (ones, zeros, arange, special, {arange: [start, step]}, "
        "{uniform: [lo, hi]}, {normal: [mean, std]}, {int: [lo, hi]}, {values: [...]})");
    return false;
}

/* ---- the keys ---- */

typedef bool (*key_fn)(const cts_keyctx *, const char *, const cts_ynode *, cts_builder *,
                       int arg);

static bool k_dtype(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    return cts_read_dtype(k, f, v, &b->c.dtype);
}

static bool k_dtypes(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    if (!cts_expect_kind(k, f, v, CTS_YN_MAP))
        return false;
    bool ok = true;
    memset(b->dtype_set, 0, sizeof b->dtype_set);
    for (size_t i = 0; i < v->n; i += 2) {
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s.%s", f, v->items[i]->text);
        int s = read_slot(k, ff, v->items[i], false, false);
        if (s < 0 || !cts_read_dtype(k, ff, v->items[i + 1], &b->c.t[s].dtype)) {
            ok = false;
            continue;
        }
        b->dtype_set[s] = true;
    }
    return ok;
}

static bool k_shape(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int s)
{
    cts_tensor *t = &b->c.t[s];
    if (!read_dims(k, f, v, &t->rank, t->dims))
        return false;
    b->shape_set[s] = true;
    b->shape_node[s] = v;
    return true;
}

static bool k_deterministic(const cts_keyctx *k, const char *f, const cts_ynode *v,
                            cts_builder *b, int a)
{
    (void)a;
    return cts_read_bool(k, f, v, &b->c.deterministic);
}

/* ---- the operator's parameters (its driver's table) ---- */

static bool read_bool_list(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_param *p)
{
    p->null = false;
    p->len = 0;
    if (cts_yaml_is_null(v)) {
        p->null = true;
        return true;
    }
    if (!cts_expect_kind(k, f, v, CTS_YN_SEQ))
        return false;
    if (v->n > CTS_MAX_DIMS) {
        ERR(v, f, "at most %d entries, got %zu", CTS_MAX_DIMS, v->n);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s[%zu]", f, i);
        bool x = false;
        ok &= cts_read_bool(k, ff, v->items[i], &x);
        p->v[i] = x;
    }
    p->len = (int)v->n;
    return ok;
}

static bool read_scalar_int(const cts_keyctx *k, const char *f, const cts_ynode *v,
                            const cts_param_desc *d, cts_param *p)
{
    int64_t x;
    bool ok = d->names ? read_named_int(k, f, v, d->names, d->nnames, &x)
                       : cts_read_int(k, f, v, &x);
    if (!ok)
        return false;
    if (d->min < d->max && (x < d->min || x > d->max)) {
        ERR(v, f, "%lld does not fit the %s parameter (%lld..%lld)", (long long)x, d->c_type,
            (long long)d->min, (long long)d->max);
        return false;
    }
    p->len = 1;
    p->v[0] = x;
    return true;
}

static bool read_param(const cts_keyctx *k, const char *f, const cts_ynode *v,
                       const cts_param_desc *d, cts_param *p)
{
    bool x;
    switch (d->kind) {
    case CTS_PARAM_INTS: return read_int_array(k, f, v, p);
    case CTS_PARAM_BOOLS: return read_bool_list(k, f, v, p);
    case CTS_PARAM_INT: return read_scalar_int(k, f, v, d, p);
    case CTS_PARAM_BOOL:
        if (!cts_read_bool(k, f, v, &x))
            return false;
        p->len = 1;
        p->v[0] = x;
        return true;
    }
    return false;
}

static bool k_format(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                     int a)
{
    (void)a;
    ref_format fm;
    if (!read_format(k, f, v, &fm))
        return false;
    for (int i = 0; i < k->op->ntensors; i++) {
        b->c.t[i].format = fm;
        b->format_set[i] = true;
    }
    return true;
}

/* Reads the value of one tensor's entry of a per-tensor map into slot `s`. */
typedef bool (*slot_reader)(const cts_keyctx *k, const char *field, const cts_ynode *v,
                            cts_builder *b, int s);

/* A map from tensor names to values (formats:, views:, data:): each value is read for its
 * tensor's slot; every error is reported, and the map reads as failed if any entry did. */
static bool read_tensor_map(const cts_keyctx *k, const char *f, const cts_ynode *v,
                            cts_builder *b, bool inputs_only, slot_reader read)
{
    if (!cts_expect_kind(k, f, v, CTS_YN_MAP))
        return false;
    bool ok = true;
    for (size_t i = 0; i < v->n; i += 2) {
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s.%s", f, v->items[i]->text);
        int s = read_slot(k, ff, v->items[i], false, inputs_only);
        if (s < 0 || !read(k, ff, v->items[i + 1], b, s))
            ok = false;
    }
    return ok;
}

static bool read_slot_format(const cts_keyctx *k, const char *ff, const cts_ynode *v,
                             cts_builder *b, int s)
{
    if (!read_format(k, ff, v, &b->c.t[s].format))
        return false;
    b->format_set[s] = true;
    return true;
}

static bool k_formats(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                      int a)
{
    (void)a;
    return read_tensor_map(k, f, v, b, false, read_slot_format);
}

/* One tensor's view: {strides: [...], offset: N}. */
static bool read_slot_view(const cts_keyctx *k, const char *ff, const cts_ynode *view,
                           cts_builder *b, int s)
{
    if (!cts_expect_kind(k, ff, view, CTS_YN_MAP))
        return false;
    bool ok = true;
    cts_tensor *t = &b->c.t[s];
    for (size_t j = 0; j < view->n; j += 2) {
        const char *key = view->items[j]->text;
        const cts_ynode *val = view->items[j + 1];
        char fff[300];
        cts_fmt(fff, sizeof fff, "%s.%s", ff, key);
        if (!strcmp(key, "strides")) {
            int rank;
            if (read_dims(k, fff, val, &rank, t->strides)) {
                t->has_strides = true;
                /* the rank is checked against the shape once the case is complete */
                b->nstrides[s] = rank;
                b->strides_node[s] = val;
                if (rank == 0) {
                    ERR(val, fff, "expected at least one stride");
                    ok = false;
                }
            } else {
                ok = false;
            }
        } else if (!strcmp(key, "offset")) {
            if (!cts_read_int(k, fff, val, &t->offset)) {
                ok = false;
            } else if (t->offset < 0) {
                ERR(val, fff, "storage offset must be >= 0");
                ok = false;
            }
        } else {
            ERR(view->items[j], fff, "unknown key (strides, offset)");
            ok = false;
        }
    }
    return ok;
}

static bool k_views(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    if (v->kind == CTS_YN_MAP) /* a views: map replaces every earlier view (defaults) */
        for (int s = 0; s < k->op->ntensors; s++) {
            b->c.t[s].has_strides = false;
            b->nstrides[s] = 0;
            b->c.t[s].offset = 0;
        }
    return read_tensor_map(k, f, v, b, false, read_slot_view);
}

/* The parameters `null:` may name, for its message. */
static void nullable_list(const cts_op_driver *op, char *buf, size_t n)
{
    buf[0] = 0;
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].nullable) {
            size_t l = strlen(buf);
            cts_fmt(buf + l, n - l, "%s%s", l ? ", " : "", op->params[i].key);
        }
}

static bool k_null(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    if (!cts_expect_kind(k, f, v, CTS_YN_SEQ))
        return false;
    const cts_op_driver *op = k->op;
    for (int s = 0; s < op->ntensors; s++)
        b->c.t[s].null = false;
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].nullable)
            b->c.param[i].null = false;
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s[%zu]", f, i);
        const char *name;
        if (!cts_read_string(k, ff, v->items[i], &name)) {
            ok = false;
            continue;
        }
        int s = cts_op_tensor_slot(op, name), p = cts_op_param_index(op, name);
        if (s >= 0) {
            b->c.t[s].null = true;
        } else if (p >= 0 && op->params[p].nullable) {
            b->c.param[p].null = b->param_set[p] = true;
        } else {
            char names[128], params[128];
            tensor_list(op, false, false, names, sizeof names);
            nullable_list(op, params, sizeof params);
            ERR(v->items[i], ff, "'%s' cannot be null (%s%s%s)", name, names, *params ? ", " : "",
                params);
            ok = false;
        }
    }
    return ok;
}

static bool read_slot_gen(const cts_keyctx *k, const char *ff, const cts_ynode *v,
                          cts_builder *b, int s)
{
    if (!read_gen(k, ff, v, &b->c.t[s].gen))
        return false;
    b->gen_set[s] = true;
    return true;
}

static bool k_data(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    return read_tensor_map(k, f, v, b, true, read_slot_gen);
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
                ERR(val, ff, "status %lld is not an aclnnStatus (int32)", (long long)x);
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
                int s = read_slot(k, fff, val->items[j], true, false);
                cts_expected_values *e = s >= 0 ? &b->c.expect_values[s] : NULL;
                if (!e || !cts_read_doubles(k, fff, val->items[j + 1], &e->values, &e->nvalues)) {
                    ok = false;
                    continue;
                }
                e->any = true;
            }
        } else {
            ERR(v->items[i], ff, "unknown key (status, values)");
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
    set_str(&b->tolerance_field, f);
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
        ERR(v, f, "repeat must be in 1..1000, got %lld", (long long)x);
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
        ERR(v, f, "unjudged must be 0 or more (elements left unjudged), got %lld", (long long)x);
        return false;
    }
    b->c.max_unjudged = x;
    return true;
}

static bool k_waiver(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                     int a)
{
    (void)a;
    if (!cts_expect_kind(k, f, v, CTS_YN_MAP))
        return false;
    bool ok = true;
    const char *reason = NULL;
    b->c.nwaiver_status = 0;
    for (size_t i = 0; i < v->n; i += 2) {
        const char *key = v->items[i]->text;
        const cts_ynode *val = v->items[i + 1];
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s.%s", f, key);
        if (!strcmp(key, "reason")) {
            ok &= cts_read_string(k, ff, val, &reason);
        } else if (!strcmp(key, "status")) {
            if (!cts_expect_kind(k, ff, val, CTS_YN_SEQ)) {
                ok = false;
                continue;
            }
            if (val->n > 4) {
                ERR(val, ff, "at most 4 statuses");
                ok = false;
                continue;
            }
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
        } else {
            ERR(v->items[i], ff, "unknown key (reason, status)");
            ok = false;
        }
    }
    if (!reason && ok) {
        ERR(v, f, "a waiver needs a reason");
        ok = false;
    }
    set_str(&b->c.waiver, ok ? reason : NULL);
    return ok;
}

static bool k_spec(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    const char *s;
    if (!cts_read_string(k, f, v, &s))
        return false;
    if (!strcmp(s, "doc"))
        b->c.spec = REF_SPEC_DOC;
    else if (!strcmp(s, "vendor"))
        b->c.spec = REF_SPEC_VENDOR;
    else if (!strcmp(s, "vendor-old"))
        b->c.spec = REF_SPEC_VENDOR_OLD;
    else {
        ERR(v, f, "unknown spec '%s' (doc, vendor, vendor-old)", s);
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
            ERR(v, f, "empty product list");
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
    set_str(&b->product_field, f);
    return ok;
}

/* The keys every op's cases have; besides them, <tensor>_shape for each tensor of the op and
 * the op's parameters. */
static const struct {
    const char *key;
    key_fn fn;
    int arg;
} keys[] = {
    {"dtype", k_dtype, 0},
    {"dtypes", k_dtypes, 0},
    {"format", k_format, 0},
    {"formats", k_formats, 0},
    {"views", k_views, 0},
    {"null", k_null, 0},
    {"data", k_data, 0},
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
        return k_shape(k, field, v, b, s);
    if (p < 0)
        return false;
    b->param_set[p] = true;
    return read_param(k, field, v, &k->op->params[p], &b->c.param[p]);
}
