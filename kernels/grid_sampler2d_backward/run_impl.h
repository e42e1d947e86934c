/* The second phase's work for one compute type. Include after defining GS_T (float or double),
 * GS_DT (its aclDataType), GS_FN(name) (a suffixed name), GS_KERNEL (gs_kernel_f32 or _f64) and
 * GS_STORE(tensor, index, value, truncate) (one rounding into the tensor's dtype).
 * Tensors of dtype GS_DT that are contiguous are used in place; anything else (FLOAT16, BF16,
 * strided views, offsets) is staged through contiguous GS_T arrays, computed there, and rounded
 * once per element into the output. */
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

static bool GS_FN(direct)(const aclTensor *t)
{
    return t->dtype == GS_DT && emu_tensor_contiguous(t);
}

/* A contiguous GS_T view of a tensor: its own memory when possible, else a staged copy. */
static GS_T *GS_FN(view)(const aclTensor *t, GS_T **owned)
{
    int64_t n = emu_tensor_numel(t);
    *owned = NULL;
    if (GS_FN(direct)(t))
        return (GS_T *)emu_element_ptr(t, 0);
    GS_T *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof(GS_T));
    if (buf != NULL)
        for (int64_t i = 0; i < n; i++)
            buf[i] = (GS_T)emu_load(t, i); /* exact: FLOAT16 and BF16 fit in FP32 */
    return *owned = buf;
}

/* The grid as [points][2]. A last dim other than 2 (possible only under the skip-check fault)
 * reads missing coordinates as 0 and ignores extra ones, staying inside the tensor. */
static GS_T *GS_FN(grid_view)(const aclTensor *t, int64_t points, GS_T **owned)
{
    int64_t d = t->dims[3];
    if (d == 2)
        return GS_FN(view)(t, owned);
    GS_T *buf = *owned = calloc((size_t)(points > 0 ? points : 1) * 2, sizeof(GS_T));
    if (buf != NULL)
        for (int64_t p = 0; p < points; p++)
            for (int64_t k = 0; k < 2 && k < d; k++)
                buf[p * 2 + k] = (GS_T)emu_load(t, p * d + k);
    return buf;
}

aclnnStatus GS_FN(gs_run)(const gs_params *pr)
{
    const int64_t *di = pr->input->dims, *dg = pr->grad_output->dims;
    const gs_shape s = {di[0], di[1], di[2], di[3], dg[2], dg[3],
                        pr->interpolation, pr->padding, pr->align_corners};
    const int64_t points = s.n * s.ho * s.wo, nin = s.n * s.c * s.hi * s.wi;
    const int64_t dgrid_dim = pr->grid_grad->dims[3];
    GS_T *own_go = NULL, *own_in = NULL, *own_grid = NULL, *own_dx = NULL, *own_dgrid = NULL;
    GS_T *dx = NULL, *dgrid = NULL;
    const GS_T *go = GS_FN(view)(pr->grad_output, &own_go);
    const GS_T *in = pr->want_dgrid ? GS_FN(view)(pr->input, &own_in) : NULL;
    const GS_T *grid = GS_FN(grid_view)(pr->grid, points, &own_grid);
    bool ok = go && grid && (in || !pr->want_dgrid);

    if (ok && pr->want_dx) {
        if (GS_FN(direct)(pr->input_grad)) /* the kernel writes (zeroes) all of dx itself */
            dx = emu_element_ptr(pr->input_grad, 0);
        else
            dx = own_dx = malloc((size_t)(nin > 0 ? nin : 1) * sizeof(GS_T));
        ok = dx != NULL;
    }
    if (ok && pr->want_dgrid) {
        if (GS_FN(direct)(pr->grid_grad) && dgrid_dim == 2)
            dgrid = emu_element_ptr(pr->grid_grad, 0);
        else
            dgrid = own_dgrid = calloc((size_t)points * 2, sizeof(GS_T));
        ok = dgrid != NULL;
    }
    if (ok) {
        uint64_t seed = pr->deterministic ? 0 : emu_shuffle_seed();
        ok = GS_KERNEL(&s, go, in, grid, dx, dgrid, pr->deterministic, seed);
    }
    if (ok) {
        bool truncate = emu_fault_on(EMU_FAULT_ROUND_TRUNCATE);
        if (own_dx != NULL)
            for (int64_t i = 0; i < nin; i++)
                GS_STORE(pr->input_grad, i, own_dx[i], truncate);
        if (own_dgrid != NULL)
            for (int64_t p = 0; p < points; p++)
                for (int64_t k = 0; k < 2 && k < dgrid_dim; k++)
                    GS_STORE(pr->grid_grad, p * dgrid_dim + k, own_dgrid[p * 2 + k], truncate);
    } else {
        emu_set_error(GS_API_NAME ": out of host memory for staging buffers or kernel scratch");
    }
    free(own_go);
    free(own_in);
    free(own_grid);
    free(own_dx);
    free(own_dgrid);
    return ok ? ACLNN_SUCCESS : ACLNN_ERR_INNER;
}
