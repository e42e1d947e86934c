/* avgpool_kernel_atomic, the scatter kernel the device runs by default: every gradOutput
 * element scatter-adds its term into an FP32 accumulator with atomic adds from OpenMP threads,
 * so the order of the additions into one element (and its last bits) can change between runs.
 * With ACLNN_EMU_SHUFFLE the elements are visited in a seeded random order (emu_permutation),
 * so the order changes even on one thread. */
#include <stdlib.h>
#include <string.h>

#include "avgpool2d_backward.h"

static float load_one(const aclTensor *t, int64_t plane_off, int64_t h, int64_t w)
{
    int64_t off = plane_off + h * t->strides[t->ndim - 2] + w * t->strides[t->ndim - 1];
    switch (t->dtype) {
    case ACL_FLOAT16:
        return emu_f16_to_f32(((const uint16_t *)t->data)[off]);
    case ACL_BF16:
        return emu_bf16_to_f32(((const uint16_t *)t->data)[off]);
    default:
        return ((const float *)t->data)[off];
    }
}

aclnnStatus avgpool_kernel_atomic(const avgpool_params *p, const avgpool_axis *ah,
                                 const avgpool_axis *aw, const float *scales, float *acc)
{
    const int64_t plane_in = p->h * p->w, plane_out = p->oh * p->ow;
    const int64_t total = p->planes * plane_out;
    uint64_t seed = emu_shuffle_seed();
    int64_t *perm = NULL;
    if (seed != 0 && (perm = emu_permutation(total, seed)) == NULL) {
        emu_set_error("aclnnAvgPool2dBackward: out of host memory for the shuffled order");
        return ACLNN_ERR_INNER;
    }
    memset(acc, 0, sizeof(float) * (size_t)(p->planes * plane_in));
    /* A seeded order runs on one thread so that it alone decides the sums: a different order
     * on every call, yet the same results for the same seed and call count (reproducible
     * verdicts and hashes); unseeded, the threads' atomics race as on the device. */
#pragma omp parallel for schedule(static) if (perm == NULL)
    for (int64_t i = 0; i < total; i++) {
        int64_t idx = perm != NULL ? perm[i] : i;
        int64_t plane = idx / plane_out, rem = idx % plane_out;
        int64_t oh = rem / p->ow, ow = rem % p->ow;
        if (ah->end[oh] <= ah->start[oh] || aw->end[ow] <= aw->start[ow]) {
            continue; /* empty window */
        }
        float g = load_one(&p->grad_output, avgpool_plane_offset(&p->grad_output, plane), oh, ow);
        float term = avgpool_term(p, g, scales[rem]);
        float *base = acc + plane * plane_in;
        for (int64_t h = ah->start[oh]; h < ah->end[oh]; h++) {
            for (int64_t w = aw->start[ow]; w < aw->end[ow]; w++) {
#pragma omp atomic
                base[h * p->w + w] += term;
            }
        }
    }
    free(perm);
    bool truncate = emu_fault_on(EMU_FAULT_ROUND_TRUNCATE);
#pragma omp parallel for schedule(static)
    for (int64_t plane = 0; plane < p->planes; plane++) {
        int64_t off = avgpool_plane_offset(&p->grad_input, plane);
        for (int64_t h = 0; h < p->h; h++) {
            float *row = acc + plane * plane_in + h * p->w;
            avgpool_round_result(p, row, p->w);
            avgpool_store_row(&p->grad_input, off, h, row, truncate);
        }
    }
    return ACLNN_SUCCESS;
}
