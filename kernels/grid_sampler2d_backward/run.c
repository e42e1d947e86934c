/* gs_run_f32, gs_run_f64: the executor's run for one compute type GS_T (built once per type,
 * grid_sampler2d_backward.h): contiguous GS_T views of the tensors (tensor_io.c), the kernel
 * chosen in the first phase, then one rounding of each staged result into its output; a group
 * of batch items at a time where the views are staged copies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

/* The kernel on contiguous arrays; false when out of host memory. */
static bool GS_FN(kernel)(const gs_shape *s, const GS_T *go, const GS_T *in, const GS_T *grid,
                          GS_T *dx, GS_T *dgrid, bool det, const int64_t *order)
{
    /* No grid points (Hout or Wout or N is 0): a selected dx is still written, all zeros, as
     * the sum over no points (docs/contract.md); both kernels assume points exist. */
    if (s->n * s->ho * s->wo == 0) {
        if (dx != NULL)
            memset(dx, 0, (size_t)(s->n * s->c * s->hi * s->wi) * sizeof *dx);
        return true;
    }
    if (s->interpolation == GS_BICUBIC)
        return GS_FN(gs_kernel_bicubic)(s, go, in, grid, dx, dgrid, det, order);
    if (det)
        return GS_FN(gs_kernel_deterministic)(s, go, in, grid, dx, dgrid);
    return GS_FN(gs_kernel_atomic)(s, go, in, grid, dx, dgrid, order);
}

/* Whether the 9.1+ vector bicubic kernel sends grid value v on an axis of `size` to -100: its
 * FP32 unnormalised coordinate, in the kernel's order of operations, is NaN or outside
 * [INT_MIN, INT_MAX - 1 as FP32 = 2^31] (ops-cv grid_sampler2_d_grad_bicubic.h:513-543@4d57ffe7). */
static bool GS_FN(vector_to_low)(GS_T v, int64_t size, bool align)
{
    float c = (float)v + 1;
    c = align ? c * 0.5f * (float)(size - 1) : (c * (float)size + -1.0f) * 0.5f;
    return !(c <= 0x1p31f && c >= -0x1p31f);
}

/* Non-finite coordinates moved to an edge in a copy when the view is the caller's
 * (gs_params.inf_to_edge: ±inf as ±1; clamp_nonfinite: also NaN as -1, and under reflection
 * every one as -1), values border and reflection clip to that edge with a zero gradient
 * factor; bicubic_low_edge: every one the vector kernel sets to -100 (vector_to_low) as -7,
 * whose taps all lie left of (above) index 0 for either align_corners. False when out of host
 * memory. */
static bool GS_FN(to_edge)(const GS_T **grid, GS_T **own, int64_t n, const gs_params *pr)
{
    bool clamp = pr->clamp_nonfinite, low = pr->bicubic_low_edge;
    const int64_t w = pr->input->dims[3], h = pr->input->dims[2];
    GS_T *g = *own;
    for (int64_t i = 0; i < n; i++) {
        GS_T c = (*grid)[i];
        if (low ? !GS_FN(vector_to_low)(c, i % 2 ? h : w, pr->align_corners)
                : !isinf(c) && !(clamp && isnan(c)))
            continue;
        if (!g) {
            if (!(g = malloc((size_t)n * sizeof *g)))
                return false;
            memcpy(g, *grid, (size_t)n * sizeof *g);
            *own = g;
            *grid = g;
        }
        if (low)
            g[i] = -7;
        else
            g[i] = isinf(c) && c > 0 && !(clamp && pr->padding == GS_REFLECTION) ? 1 : -1;
    }
    return true;
}

/* Where a direct output's elements start at element `first` (gs_direct: dtype GS_DT and
 * contiguous as this kernel sees it). */
static GS_T *GS_FN(direct_ptr)(const aclTensor *t, int64_t first)
{
    return (GS_T *)emu_element_ptr(t, 0) + first;
}

/* Whether the kernel reads the input: only for a grid gradient, and nearest has none (0). */
static bool GS_FN(reads_input)(const gs_params *pr)
{
    return pr->want_dgrid && pr->interpolation != GS_NEAREST;
}

/* Batch items b0 .. b0 + nb − 1 of the case: their inputs staged (or used in place), the
 * kernel (points in the given order of the items' own points, or NULL), each staged result
 * rounded once into its output. False when out of host memory. */
static bool GS_FN(run_items)(const gs_params *pr, const gs_shape *all, int64_t b0, int64_t nb,
                             const int64_t *order)
{
    gs_shape s = *all;
    s.n = nb;
    const int64_t po = s.ho * s.wo, p0 = b0 * po, points = nb * po;
    const int64_t per_in = s.c * s.hi * s.wi, in0 = b0 * per_in, nin = nb * per_in;
    const int64_t dgrid_dim = pr->grid_grad->dims[3];
    GS_T *own_go = NULL, *own_in = NULL, *own_grid = NULL, *own_dx = NULL, *own_dgrid = NULL;
    GS_T *dx = NULL, *dgrid = NULL;
    const GS_T *go = GS_FN(gs_view)(pr->grad_output, b0 * s.c * po, nb * s.c * po, &own_go);
    const bool need_in = GS_FN(reads_input)(pr);
    const GS_T *in = need_in ? GS_FN(gs_view)(pr->input, in0, nin, &own_in) : NULL;
    const GS_T *grid = GS_FN(gs_grid_view)(pr->grid, p0, points, &own_grid);
    bool ok = go && grid && (in || !need_in);
    if (ok && (pr->inf_to_edge || pr->clamp_nonfinite || pr->bicubic_low_edge))
        ok = GS_FN(to_edge)(&grid, &own_grid, points * 2, pr);

    if (ok && pr->want_dx) {
        if (GS_FN(gs_direct)(pr->input_grad)) /* the kernel writes (zeroes) all of dx itself */
            dx = GS_FN(direct_ptr)(pr->input_grad, in0);
        else
            dx = own_dx = malloc((size_t)(nin > 0 ? nin : 1) * sizeof(GS_T));
        ok = dx != NULL;
    }
    if (ok && pr->want_dgrid) {
        if (GS_FN(gs_direct)(pr->grid_grad) && dgrid_dim == 2)
            dgrid = GS_FN(direct_ptr)(pr->grid_grad, p0 * 2);
        else
            dgrid = own_dgrid = calloc((size_t)points * 2, sizeof(GS_T));
        ok = dgrid != NULL;
    }
    if (ok)
        ok = GS_FN(kernel)(&s, go, in, grid, dx, dgrid, pr->deterministic, order);
    if (ok) {
        bool truncate = emu_fault_on(EMU_FAULT_ROUND_TRUNCATE);
        if (own_dx != NULL)
            GS_FN(gs_store_range)(pr->input_grad, in0, own_dx, nin, truncate);
        if (own_dgrid != NULL && dgrid_dim == 2)
            GS_FN(gs_store_range)(pr->grid_grad, p0 * 2, own_dgrid, points * 2, truncate);
        else if (own_dgrid != NULL)
            for (int64_t p = 0; p < points; p++)
                for (int64_t k = 0; k < 2 && k < dgrid_dim; k++)
                    GS_FN(gs_store)(pr->grid_grad, (p0 + p) * dgrid_dim + k,
                                    own_dgrid[p * 2 + k], truncate);
    }
    free(own_go);
    free(own_in);
    free(own_grid);
    free(own_dx);
    free(own_dgrid);
    return ok;
}

/* Host bytes of FP32 copies the emulated device holds at once: a case whose tensors need
 * staging (FLOAT16, BF16, views that are not contiguous) runs a group of batch items at a time,
 * rather than holding a GS_T copy of every tensor whole (4 bytes an element of each: more than
 * the case's own tensors). */
#define GS_STAGE_BYTES ((int64_t)64 << 20)

/* Batch items a group holds: every item at once when nothing is staged; each item's outputs
 * come from its own points alone, in the same order, either way. */
static int64_t GS_FN(group_items)(const gs_params *pr, const gs_shape *s)
{
    const int64_t po = s->ho * s->wo, per_in = s->c * s->hi * s->wi;
    int64_t per = GS_FN(gs_direct)(pr->grad_output) ? 0 : s->c * po;
    if (GS_FN(reads_input)(pr) && !GS_FN(gs_direct)(pr->input))
        per += per_in;
    if (!GS_FN(gs_direct)(pr->grid) || pr->grid->dims[3] != 2)
        per += 2 * po;
    if (pr->want_dx && !GS_FN(gs_direct)(pr->input_grad))
        per += per_in;
    if (pr->want_dgrid && !(GS_FN(gs_direct)(pr->grid_grad) && pr->grid_grad->dims[3] == 2))
        per += 2 * po;
    if (per == 0 || s->n <= 1)
        return s->n;
    int64_t g = GS_STAGE_BYTES / (per * (int64_t)sizeof(GS_T));
    return g < 1 ? 1 : g < s->n ? g : s->n;
}

/* The points p0 .. p0 + count − 1 of order[0 .. total) in the order they have there, as
 * indices from p0, into sub (nothing when order is NULL: sub is NULL too). */
static void GS_FN(group_order)(const int64_t *order, int64_t total, int64_t p0, int64_t count,
                               int64_t *sub)
{
    for (int64_t i = 0, k = 0; order && i < total; i++)
        if (order[i] >= p0 && order[i] < p0 + count)
            sub[k++] = order[i] - p0;
}

aclnnStatus GS_FN(gs_run)(const gs_params *pr)
{
    const int64_t *di = pr->input->dims, *dg = pr->grad_output->dims;
    const bool truncate = pr->dx_sums && emu_fault_on(EMU_FAULT_ROUND_TRUNCATE);
    const gs_shape s = {di[0], di[1], di[2], di[3], dg[2], dg[3],
                        pr->interpolation, pr->padding, pr->align_corners,
                        pr->bicubic_nonfinite, pr->dx_sums | (truncate ? GS_SUMS_TRUNCATE : 0),
                        pr->coord_round};
    uint64_t seed = pr->deterministic ? 0 : emu_shuffle_seed();
    const int64_t group = GS_FN(group_items)(pr, &s), total = s.n * s.ho * s.wo;
    /* ACLNN_EMU_SHUFFLE: one permutation of all the case's points; a group runs its own points
     * in the order they have there, so every sum is the whole case's, grouped or not */
    int64_t *order = seed ? emu_permutation(total, seed) : NULL, *sub = NULL;
    bool ok = !seed || order;
    if (ok && group < s.n && order)
        ok = (sub = malloc((size_t)total * sizeof *sub)) != NULL;
    if (ok && group >= s.n) /* also no batch item at all: the kernel still runs, on nothing */
        ok = GS_FN(run_items)(pr, &s, 0, s.n, order);
    else
        for (int64_t b0 = 0; ok && b0 < s.n; b0 += group) {
            int64_t nb = s.n - b0 < group ? s.n - b0 : group;
            GS_FN(group_order)(order, total, b0 * s.ho * s.wo, nb * s.ho * s.wo, sub);
            ok = GS_FN(run_items)(pr, &s, b0, nb, sub);
        }
    free(order);
    free(sub);
    if (!ok)
        emu_set_error(GS_API_NAME ": out of host memory for staging buffers or kernel scratch");
    return ok ? ACLNN_SUCCESS : ACLNN_ERR_INNER;
}
