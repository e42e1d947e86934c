/* Completing a case once all its keys are read: what the op requires, its parameters with
 * defaults that depend on others, the shapes the suite left to derive (the op's driver), default
 * formats, dtypes and generators, view ranks, and the tolerance for its dtype. */
#include <stdlib.h>
#include <string.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

static void copy_shape(cts_tensor *dst, const cts_tensor *src)
{
    dst->rank = src->rank;
    memcpy(dst->dims, src->dims, sizeof dst->dims);
}

/* Uniform in [-1, 1]; coordinates a little beyond, so some fall outside the sampled image. */
static void default_gen(cts_case *c, int s)
{
    cts_datagen *g = &c->t[s].gen;
    memset(g, 0, sizeof *g);
    g->kind = CTS_GEN_UNIFORM;
    bool coordinates = c->op->tensors[s].coordinates;
    g->a = coordinates ? -1.1 : -1;
    g->b = coordinates ? 1.1 : 1;
}

/* Every tensor's elements, storage span (shape x strides + offset) and bytes fit in 64 bits: a
 * wrapped size would run a different case than the suite describes. */
static bool tensors_can_exist(const cts_keyctx *k, const cts_builder *b,
                              const cts_ynode *case_node, const char *case_field)
{
    const cts_case *c = &b->c;
    for (int s = 0; s < c->ntensors; s++) {
        cts_tensor_extent e;
        if (c->t[s].null || cts_tensor_extent_of(&c->t[s], &e))
            continue;
        /* a derived shape points at the shape it comes from */
        int from = b->shape_set[s] || c->op->tensors[s].shape_from < 0 ? s
                                                            : c->op->tensors[s].shape_from;
        const cts_ynode *at = b->shape_node[from] ? b->shape_node[from] : case_node;
        char f[256];
        cts_fmt(f, sizeof f, "%s.%s_shape", case_field, c->t[from].name);
        ERR(at, f, "%s cannot exist: its element count, storage span (shape x strides + "
            "offset) or size in bytes exceeds 2^63", c->t[s].name);
        return false;
    }
    return true;
}

/* Every shape and parameter the op requires was given. */
static bool required_given(const cts_keyctx *k, const cts_builder *b, const cts_ynode *case_node,
                           const char *case_field)
{
    const cts_op_driver *op = b->c.op;
    bool ok = true;
    char f[256];
    for (int s = 0; s < op->ntensors; s++)
        if (op->tensors[s].required && !b->shape_set[s]) {
            cts_fmt(f, sizeof f, "%s.%s_shape", case_field, op->tensors[s].name);
            ERR(case_node, f, "required");
            ok = false;
        }
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].required && !b->param_set[i]) {
            cts_fmt(f, sizeof f, "%s.%s", case_field, op->params[i].key);
            ERR(case_node, f, "required");
            ok = false;
        }
    return ok;
}

/* Shapes left open (derived by the op, or another tensor's), dtypes, formats and generators
 * left open; strides against the rank. */
static bool complete_tensors(const cts_keyctx *k, cts_builder *b, const char *case_field)
{
    cts_case *c = &b->c;
    const cts_op_driver *op = c->op;
    bool ok = true;
    char f[256];
    for (int s = 0; s < c->ntensors; s++)
        if (!b->shape_set[s] && op->tensors[s].derived) {
            op->derive_shapes(c);
            break;
        }
    for (int s = 0; s < c->ntensors; s++) {
        if (!b->shape_set[s] && !op->tensors[s].derived && op->tensors[s].shape_from >= 0)
            copy_shape(&c->t[s], &c->t[op->tensors[s].shape_from]);
        if (!b->dtype_set[s])
            c->t[s].dtype = c->dtype;
        if (!b->format_set[s])
            c->t[s].format = op->default_format(c->t[s].rank);
        if (!c->t[s].is_output && !b->gen_set[s])
            default_gen(c, s);
        if (c->t[s].has_strides && b->nstrides[s] != c->t[s].rank) {
            cts_fmt(f, sizeof f, "%s.views.%s.strides", case_field, c->t[s].name);
            ERR(b->strides_node[s], f, "%d strides for a tensor of rank %d", b->nstrides[s],
                c->t[s].rank);
            ok = false;
        }
    }
    return ok;
}

/* The value of the op's numerics parameter a tolerance selector names (0 when none). */
static int64_t numerics_value(const cts_case *c)
{
    int i = cts_op_tolerance_param(c->op);
    return i >= 0 ? c->param[i].v[0] : 0;
}

bool cts_case_finish(const cts_keyctx *k, cts_builder *b, const cts_ynode *case_node,
                     const char *case_field)
{
    cts_case *c = &b->c;
    char f[256];
    if (!required_given(k, b, case_node, case_field))
        return false;
    if (c->op->complete)
        c->op->complete(c, b->param_set);
    bool ok = complete_tensors(k, b, case_field);
    /* a negative dimension is only meaningful in a case about the error it gives */
    for (int s = 0; s < c->ntensors && !c->expect_status_model && c->expect_status == 0; s++) {
        bool neg = false;
        for (int d = 0; d < c->t[s].rank; d++)
            neg |= c->t[s].dims[d] < 0;
        if (neg) {
            cts_fmt(f, sizeof f, "%s.expect.status", case_field);
            ERR(case_node, f, "%s has a negative dimension; the case cannot expect success",
                c->t[s].name);
            ok = false;
            break;
        }
    }
    ok &= tensors_can_exist(k, b, case_node, case_field);
    if (b->tolerance) {
        ok &= cts_tolerance_resolve(k, b->tolerance_field, b->tolerance, c->dtype,
                                    numerics_value(c), &c->tolerance);
    } else {
        free((void *)c->tolerance.name);
        memset(&c->tolerance, 0, sizeof c->tolerance);
        c->tolerance.kind = CTS_TOL_BOUND;
        c->tolerance.name = strdup("bound");
    }
    c->mark.line = case_node->line;
    c->mark.column = case_node->col;
    return ok;
}
