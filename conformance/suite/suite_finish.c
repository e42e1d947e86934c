/* Completing a case once all its keys are read: the shapes the suite left to derive (facts §4
 * forward output size for avg-pool; N, C of input and H, W of grid for the grid sampler),
 * default formats, dtypes and generators, view ranks, and the tolerance for its dtype. */
#include <stdlib.h>
#include <string.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* facts §4 forward output size of one axis; false when the parameters give none. */
static bool pool_out(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil, int64_t *out)
{
    if (k <= 0 || s <= 0 || p < 0)
        return false;
    int64_t o = floor_div(in + 2 * p - k + (ceil ? s - 1 : 0), s) + 1;
    if (ceil && (o - 1) * s >= in + p)
        o--;
    *out = o;
    return true;
}

static bool axis(const cts_int_array *a, int i, int64_t *v)
{
    if (a->null || a->len < 1 || a->len > 2)
        return false;
    *v = a->v[a->len == 1 ? 0 : i];
    return true;
}

/* gradOutput of avg-pool: self's leading dims and the forward output size. When kernel, stride
 * or padding give no output size (null, bad length, non-positive), or self's rank is not 3 or 4,
 * it is self's shape: such a case is an error case and the status model decides it before shapes
 * matter. */
static void derive_avg(cts_case *c)
{
    const cts_tensor *self = &c->t[1];
    cts_tensor *go = &c->t[0];
    go->rank = self->rank;
    memcpy(go->dims, self->dims, sizeof go->dims);
    if (self->rank != 3 && self->rank != 4)
        return;
    int64_t kh, kw, sh, sw, ph, pw;
    if (!axis(&c->kernel_size, 0, &kh) || !axis(&c->kernel_size, 1, &kw) ||
        !axis(&c->padding, 0, &ph) || !axis(&c->padding, 1, &pw))
        return;
    if (c->stride.null || c->stride.len == 0) {
        sh = kh;
        sw = kw;
    } else if (!axis(&c->stride, 0, &sh) || !axis(&c->stride, 1, &sw)) {
        return;
    }
    int64_t oh, ow;
    int r = self->rank;
    if (!pool_out(self->dims[r - 2], kh, sh, ph, c->ceil_mode, &oh) ||
        !pool_out(self->dims[r - 1], kw, sw, pw, c->ceil_mode, &ow))
        return;
    go->dims[r - 2] = oh;
    go->dims[r - 1] = ow;
}

/* gradOutput of the grid sampler: (input N, input C, grid H, grid W); a missing dim (rank too
 * small) is 1. */
static void derive_grid(cts_case *c)
{
    const cts_tensor *in = &c->t[1], *grid = &c->t[2];
    cts_tensor *go = &c->t[0];
    go->rank = 4;
    go->dims[0] = in->rank > 0 ? in->dims[0] : 1;
    go->dims[1] = in->rank > 1 ? in->dims[1] : 1;
    go->dims[2] = grid->rank > 1 ? grid->dims[1] : 1;
    go->dims[3] = grid->rank > 2 ? grid->dims[2] : 1;
}

static void copy_shape(cts_tensor *dst, const cts_tensor *src)
{
    dst->rank = src->rank;
    memcpy(dst->dims, src->dims, sizeof dst->dims);
}

static void default_gen(cts_case *c, int s)
{
    cts_datagen *g = &c->t[s].gen;
    memset(g, 0, sizeof *g);
    g->kind = CTS_GEN_UNIFORM;
    bool grid = c->op == REF_OP_GRID_SAMPLER2D_BACKWARD && s == 2;
    g->a = grid ? -1.1 : -1;
    g->b = grid ? 1.1 : 1;
}

/* Every tensor's elements, storage span (shape x strides + offset) and bytes fit in 64 bits: a
 * wrapped size would run a different case than the suite describes. */
static bool tensors_can_exist(const cts_keyctx *k, const cts_builder *b,
                              const cts_ynode *case_node, const char *case_field)
{
    const cts_case *c = &b->c;
    bool avg = c->op == REF_OP_AVGPOOL2D_BACKWARD;
    for (int s = 0; s < c->ntensors; s++) {
        cts_tensor_extent e;
        if (c->t[s].null || cts_tensor_extent_of(&c->t[s], &e))
            continue;
        /* a derived shape points at the shape it comes from */
        int from = b->shape_set[s] ? s : s == 0 || avg ? 1 : s - 2;
        const cts_ynode *at = b->shape_node[from] ? b->shape_node[from] : case_node;
        char f[256];
        cts_fmt(f, sizeof f, "%s.%s_shape", case_field, c->t[from].name);
        ERR(at, f, "%s cannot exist: its element count, storage span (shape x strides + "
            "offset) or size in bytes exceeds 2^63", c->t[s].name);
        return false;
    }
    return true;
}

bool cts_case_finish(const cts_keyctx *k, cts_builder *b, const cts_ynode *case_node,
                     const char *case_field)
{
    cts_case *c = &b->c;
    bool ok = true, avg = c->op == REF_OP_AVGPOOL2D_BACKWARD;
    char f[256];
    /* required shapes */
    static const int avg_req[] = {1}, grid_req[] = {1, 2};
    const int *req = avg ? avg_req : grid_req;
    for (int i = 0; i < (avg ? 1 : 2); i++)
        if (!b->shape_set[req[i]]) {
            cts_fmt(f, sizeof f, "%s.%s_shape", case_field, c->t[req[i]].name);
            ERR(case_node, f, "required");
            ok = false;
        }
    if (avg && !b->array_set[0]) {
        cts_fmt(f, sizeof f, "%s.kernel_size", case_field);
        ERR(case_node, f, "required");
        ok = false;
    }
    if (!ok)
        return false;
    if (avg && !b->array_set[1]) /* stride defaults to the kernel, as in PyTorch */
        c->stride = c->kernel_size;
    if (avg && !b->array_set[2]) {
        c->padding.len = 1;
        c->padding.v[0] = 0;
    }
    if (!b->shape_set[0])
        avg ? derive_avg(c) : derive_grid(c);
    for (int s = 0; s < c->ntensors; s++) {
        if (!b->shape_set[s] && s > 0)
            copy_shape(&c->t[s], &c->t[avg ? 1 : s - 2]); /* outputs take self/input/grid */
        if (!b->dtype_set[s])
            c->t[s].dtype = c->dtype;
        if (!b->format_set[s])
            c->t[s].format = !avg ? REF_FMT_ND : c->t[s].rank == 3 ? REF_FMT_NCL : REF_FMT_NCHW;
        if (!c->t[s].is_output && !b->gen_set[s])
            default_gen(c, s);
        if (c->t[s].has_strides && b->nstrides[s] != c->t[s].rank) {
            cts_fmt(f, sizeof f, "%s.views.%s.strides", case_field, c->t[s].name);
            ERR(b->strides_node[s], f, "%d strides for a tensor of rank %d", b->nstrides[s],
                c->t[s].rank);
            ok = false;
        }
    }
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
                                    c->cube_math_type, &c->tolerance);
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
