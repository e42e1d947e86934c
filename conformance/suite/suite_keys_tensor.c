/* The keys of a case's tensors (suite_keys.h): dtype(s), <tensor>_shape, format(s), views,
 * null, data. */
#include "suite_keys.h"

#include <string.h>

bool cts_key_dtype(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    return cts_read_dtype(k, f, v, &b->c.dtype);
}

bool cts_key_dtypes(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    if (!cts_expect_kind(k, f, v, CTS_YN_MAP))
        return false;
    bool ok = true;
    memset(b->dtype_set, 0, sizeof b->dtype_set);
    for (size_t i = 0; i < v->n; i += 2) {
        char ff[256];
        cts_fmt(ff, sizeof ff, "%s.%s", f, v->items[i]->text);
        int s = cts_read_slot(k, ff, v->items[i], false, false);
        if (s < 0 || !cts_read_dtype(k, ff, v->items[i + 1], &b->c.t[s].dtype)) {
            ok = false;
            continue;
        }
        b->dtype_set[s] = true;
    }
    return ok;
}

bool cts_key_shape(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int s)
{
    cts_tensor *t = &b->c.t[s];
    if (!cts_read_dims(k, f, v, &t->rank, t->dims))
        return false;
    b->shape_set[s] = true;
    b->shape_node[s] = v;
    return true;
}

bool cts_key_format(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                    int a)
{
    (void)a;
    ref_format fm;
    if (!cts_read_format(k, f, v, &fm))
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
        int s = cts_read_slot(k, ff, v->items[i], false, inputs_only);
        if (s < 0 || !read(k, ff, v->items[i + 1], b, s))
            ok = false;
    }
    return ok;
}

static bool read_slot_format(const cts_keyctx *k, const char *ff, const cts_ynode *v,
                             cts_builder *b, int s)
{
    if (!cts_read_format(k, ff, v, &b->c.t[s].format))
        return false;
    b->format_set[s] = true;
    return true;
}

bool cts_key_formats(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
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
            if (cts_read_dims(k, fff, val, &rank, t->strides)) {
                t->has_strides = true;
                /* the rank is checked against the shape once the case is complete */
                b->nstrides[s] = rank;
                b->strides_node[s] = val;
                if (rank == 0) {
                    KEY_ERR(val, fff, "expected at least one stride");
                    ok = false;
                }
            } else {
                ok = false;
            }
        } else if (!strcmp(key, "offset")) {
            if (!cts_read_int(k, fff, val, &t->offset)) {
                ok = false;
            } else if (t->offset < 0) {
                KEY_ERR(val, fff, "storage offset must be >= 0");
                ok = false;
            }
        } else {
            KEY_ERR(view->items[j], fff, "unknown key (strides, offset)");
            ok = false;
        }
    }
    return ok;
}

bool cts_key_views(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
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

bool cts_key_null(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
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
            cts_tensor_names(op, false, false, names, sizeof names);
            nullable_list(op, params, sizeof params);
            KEY_ERR(v->items[i], ff, "'%s' cannot be null (%s%s%s)", name, names, *params ? ", " : "",
                    params);
            ok = false;
        }
    }
    return ok;
}

static bool read_slot_gen(const cts_keyctx *k, const char *ff, const cts_ynode *v,
                          cts_builder *b, int s)
{
    if (!cts_read_gen(k, ff, v, &b->c.t[s].gen))
        return false;
    b->gen_set[s] = true;
    return true;
}

bool cts_key_data(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a)
{
    (void)a;
    return read_tensor_map(k, f, v, b, true, read_slot_gen);
}
