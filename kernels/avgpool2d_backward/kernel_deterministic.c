/* avgpool_kernel_deterministic, the gather kernel: each gradInput element gathers the terms of
 * the windows that contain it in one fixed order, so results are bitwise identical across runs
 * and thread counts. Per plane: t[oh][ow] = term of gradOutput[oh][ow]; row sums
 * u[oh][w] = sum over ow ascending of t[oh][ow]; gradInput[h][w] = sum over oh ascending of
 * u[oh][w]. All sums FP32, one final rounding to the output dtype. */
#include <stdlib.h>

#include "avgpool2d_backward.h"

/* One plane. t: OH*OW, u: OH*W, row: W scratch. */
static void gather_plane(const avgpool_params *p, const avgpool_axis *ah,
                         const avgpool_axis *aw, const float *scales, int64_t plane, float *t,
                         float *u, float *row, bool truncate)
{
    const int64_t oh_n = p->oh, ow_n = p->ow, w_n = p->w;
    int64_t go_off = avgpool_plane_offset(&p->grad_output, plane);
    int64_t gi_off = avgpool_plane_offset(&p->grad_input, plane);
    for (int64_t oh = 0; oh < oh_n; oh++) {
        float *tr = t + oh * ow_n;
        const float *sr = scales + oh * ow_n;
        avgpool_load_row(&p->grad_output, go_off, oh, tr);
        if (p->path == AVGPOOL_PATH_VECTOR) { /* the common case, one division per element */
#pragma omp simd
            for (int64_t ow = 0; ow < ow_n; ow++) {
                tr[ow] = tr[ow] / sr[ow];
            }
            continue;
        }
        for (int64_t ow = 0; ow < ow_n; ow++) {
            tr[ow] = avgpool_term(p, tr[ow], sr[ow]);
        }
    }
    const int64_t *wlo = aw->lo, *whi = aw->hi;
    for (int64_t oh = 0; oh < oh_n; oh++) {
        const float *tr = t + oh * ow_n;
        float *ur = u + oh * w_n;
        for (int64_t w = 0; w < w_n; w++) {
            float s = 0.0f;
            for (int64_t ow = wlo[w]; ow < whi[w]; ow++) {
                s += tr[ow];
            }
            ur[w] = s;
        }
    }
    for (int64_t h = 0; h < p->h; h++) {
        float *direct = avgpool_direct_row(&p->grad_input, gi_off, h);
        float *restrict dst = direct != NULL ? direct : row;
        /* Element-wise over w (each element keeps its own order of additions), so SIMD lanes
         * give the same bits; the pragma asks for vectors that -O2's cost model skips. */
#pragma omp simd
        for (int64_t w = 0; w < w_n; w++) {
            dst[w] = 0.0f;
        }
        for (int64_t oh = ah->lo[h]; oh < ah->hi[h]; oh++) {
            const float *restrict ur = u + oh * w_n;
#pragma omp simd
            for (int64_t w = 0; w < w_n; w++) {
                dst[w] += ur[w];
            }
        }
        avgpool_round_result(p, dst, w_n);
        if (direct == NULL) {
            avgpool_store_row(&p->grad_input, gi_off, h, dst, truncate);
        }
    }
}

aclnnStatus avgpool_kernel_deterministic(const avgpool_params *p, const avgpool_axis *ah,
                                        const avgpool_axis *aw, const float *scales)
{
    bool truncate = emu_fault_on(EMU_FAULT_ROUND_TRUNCATE);
    int failed = 0;
#pragma omp parallel
    {
        size_t n = (size_t)(p->oh * p->ow + p->oh * p->w + p->w);
        float *buf = malloc(sizeof(float) * n);
        if (buf == NULL) {
#pragma omp atomic write
            failed = 1;
        }
        /* Dynamic: on a shared machine a descheduled thread holds up the others by a few
         * planes, not by half of them. */
#pragma omp for schedule(dynamic, 8)
        for (int64_t plane = 0; plane < p->planes; plane++) {
            if (buf != NULL) {
                gather_plane(p, ah, aw, scales, plane, buf, buf + p->oh * p->ow,
                             buf + p->oh * p->ow + p->oh * p->w, truncate);
            }
        }
        free(buf);
    }
    if (failed) {
        emu_set_error("aclnnAvgPool2dBackward: out of host memory for the gather kernel");
        return ACLNN_ERR_INNER;
    }
    return ACLNN_SUCCESS;
}
