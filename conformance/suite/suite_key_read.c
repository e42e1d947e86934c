/* Typed readers of the values of case keys (suite_keys.h): tensor slots, shapes, int lists,
 * formats, named integers, data generators, and an operator parameter by its descriptor. */
#include "suite_keys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cts_tensor_names(const cts_op_driver *op, bool outputs_only, bool inputs_only, char *buf,
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
int cts_read_slot(const cts_keyctx *k, const char *field, const cts_ynode *key, bool outputs,
                  bool inputs)
{
    int s = cts_op_tensor_slot(k->op, key->text);
    if (s >= 0 && !(outputs && !k->op->tensors[s].is_output) &&
        !(inputs && k->op->tensors[s].is_output))
        return s;
    char names[128];
    cts_tensor_names(k->op, outputs, inputs, names, sizeof names);
    KEY_ERR(key, field, "unknown %s '%s' (%s)",
            outputs ? "output" : inputs ? "input tensor" : "tensor", key->text, names);
    return -1;
}


/* A list of integers; |value| <= limit (shapes and strides: 2^40, far beyond any tensor this
 * harness allocates; operator parameters: the whole int64 range the API takes). */
static bool read_ints(const cts_keyctx *k, const char *field, const cts_ynode *v, int *rank,
                      int64_t *dims, int64_t limit)
{
    if (!cts_expect_kind(k, field, v, CTS_YN_SEQ))
        return false;
    if (v->n > CTS_MAX_DIMS) {
        KEY_ERR(v, field, "at most %d dimensions, got %zu", CTS_MAX_DIMS, v->n);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        char f[256];
        cts_fmt(f, sizeof f, "%s[%zu]", field, i);
        ok &= cts_read_int(k, f, v->items[i], &dims[i]);
        if (ok && limit < INT64_MAX && (dims[i] > limit || dims[i] < -limit)) {
            KEY_ERR(v->items[i], f, "dimension %lld is out of range", (long long)dims[i]);
            ok = false;
        }
    }
    *rank = (int)v->n;
    return ok;
}

bool cts_read_dims(const cts_keyctx *k, const char *field, const cts_ynode *v, int *rank,
                   int64_t *dims)
{
    return read_ints(k, field, v, rank, dims, 1LL << 40);
}

bool cts_read_int_array(const cts_keyctx *k, const char *field, const cts_ynode *v,
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

bool cts_read_format(const cts_keyctx *k, const char *field, const cts_ynode *v,
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
    KEY_ERR(v, field, "unknown format '%s' (nchw, nhwc, nd, nc1hwc0, fractal_z, ncl, undefined, or an "
            "aclFormat integer -1..255%s)", v->kind == CTS_YN_SCALAR ? v->text : "?",
        quoted_number_note(v));
    return false;
}

bool cts_read_named_int(const cts_keyctx *k, const char *field, const cts_ynode *v,
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
    KEY_ERR(v, field, "unknown value '%s' (%s, or an integer%s)",
            v->kind == CTS_YN_SCALAR ? v->text : "?", list, quoted_number_note(v));
    return false;
}

void cts_set_str(const char **dst, const char *src)
{
    free((void *)*dst);
    *dst = NULL;
    if (src) {
        *dst = strdup(src);
        if (!*dst)
            abort();
    }
}

bool cts_read_gen(const cts_keyctx *k, const char *field, const cts_ynode *v,
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
            KEY_ERR(arg, f, "expected [%s]",
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
            KEY_ERR(arg, f, "arguments must be finite numbers (got %g, %g)", g->a, g->b);
            return false;
        }
        if (kind == CTS_GEN_INT && (fabs(g->a) > 0x1p53 || fabs(g->b) > 0x1p53)) {
            KEY_ERR(arg, f, "bounds must lie within +-2^53 (9007199254740992): data are doubles");
            return false;
        }
        if (kind == CTS_GEN_NORMAL && !(g->b >= 0)) {
            KEY_ERR(arg->items[1], f1, "standard deviation must be >= 0");
            return false;
        }
        if ((kind == CTS_GEN_UNIFORM || kind == CTS_GEN_INT) && !(g->a <= g->b)) {
            KEY_ERR(arg, f, "lo must be <= hi");
            return false;
        }
        if (kind == CTS_GEN_INT && (g->a != (double)(int64_t)g->a ||
                                    g->b != (double)(int64_t)g->b)) {
            KEY_ERR(arg, f, "bounds must be integers");
            return false;
        }
        return true;
    }
bad:
    KEY_ERR(v, field,
            "unknown generator (ones, zeros, arange, special, {arange: [start, step]}, "
            "{uniform: [lo, hi]}, {normal: [mean, std]}, {int: [lo, hi]}, {values: [...]})");
    return false;
}


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
        KEY_ERR(v, f, "at most %d entries, got %zu", CTS_MAX_DIMS, v->n);
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
    bool ok = d->names ? cts_read_named_int(k, f, v, d->names, d->nnames, &x)
                       : cts_read_int(k, f, v, &x);
    if (!ok)
        return false;
    if (d->min < d->max && (x < d->min || x > d->max)) {
        KEY_ERR(v, f, "%lld does not fit the %s parameter (%lld..%lld)", (long long)x, d->c_type,
                (long long)d->min, (long long)d->max);
        return false;
    }
    p->len = 1;
    p->v[0] = x;
    return true;
}

bool cts_read_param(const cts_keyctx *k, const char *f, const cts_ynode *v,
                    const cts_param_desc *d, cts_param *p)
{
    bool x;
    switch (d->kind) {
    case CTS_PARAM_INTS: return cts_read_int_array(k, f, v, p);
    case CTS_PARAM_BOOLS: return read_bool_list(k, f, v, p);
    case CTS_PARAM_INT: return read_scalar_int(k, f, v, d, p);
    case CTS_PARAM_DOUBLE:
        if (!cts_read_double(k, f, v, &p->real))
            return false;
        if (!isfinite(p->real)) {
            KEY_ERR(v, f, "expected a finite number");
            return false;
        }
        p->len = 1;
        return true;
    case CTS_PARAM_BOOL:
        if (!cts_read_bool(k, f, v, &x))
            return false;
        p->len = 1;
        p->v[0] = x;
        return true;
    }
    return false;
}
