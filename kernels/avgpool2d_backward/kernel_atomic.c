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
        return fp_f16_to_f32(((const uint16_t *)t->data)[off]);
    case ACL_BF16:
        return fp_bf16_to_f32(((const uint16_t *)t->data)[off]);
    default:
        return ((const float *)t->data)[off];
    }
}

/* term added to the window [h0, h1) x [w0, w1) of a plane of width w, row by row (each
 * element once: the lanes of a row are independent adds). */
static void avgpool_window_add(float *base, int64_t w, int64_t h0, int64_t h1, int64_t w0,
                               int64_t w1, float term)
{
    for (int64_t h = h0; h < h1; h++) {
        float *row = base + h * w;
#pragma omp simd
        for (int64_t x = w0; x < w1; x++)
            row[x] += term;
    }
}

/* The term of gradOutput element idx (flat over planes, rows, columns) and its window;
 * false for an empty window. */
static bool avgpool_element(const avgpool_params *p, const avgpool_axis *ah,
                            const avgpool_axis *aw, const float *scales, int64_t idx,
                            float *term)
{
    const int64_t plane_out = p->oh * p->ow, plane = idx / plane_out, rem = idx % plane_out;
    const int64_t oh = rem / p->ow, ow = rem % p->ow;
    if (ah->end[oh] <= ah->start[oh] || aw->end[ow] <= aw->start[ow])
        return false;
    float g = load_one(&p->grad_output, avgpool_plane_offset(&p->grad_output, plane), oh, ow);
    *term = avgpool_term(p, g, scales[rem]);
    return true;
}

/* The seeded order on one thread. An element adds only into its own plane, so taking the
 * planes one at a time, each one's elements in the order they have in perm, gives every
 * accumulator its terms in perm's order with plain adds: the same sums, while the plane stays
 * in cache instead of each window missing it. False when out of memory. */
static bool avgpool_scatter_seeded(const avgpool_params *p, const avgpool_axis *ah,
                                   const avgpool_axis *aw, const float *scales, float *acc,
                                   const int64_t *perm)
{
    const int64_t plane_in = p->h * p->w, plane_out = p->oh * p->ow;
    int64_t *sorted = malloc((size_t)(p->planes * plane_out) * sizeof *sorted);
    int64_t *fill = malloc((size_t)p->planes * sizeof *fill);
    bool ok = sorted != NULL && fill != NULL;
    for (int64_t k = 0; ok && k < p->planes; k++)
        fill[k] = k * plane_out;
    for (int64_t i = 0; ok && i < p->planes * plane_out; i++)
        sorted[fill[perm[i] / plane_out]++] = perm[i];
    for (int64_t i = 0; ok && i < p->planes * plane_out; i++) {
        const int64_t idx = sorted[i], rem = idx % plane_out, oh = rem / p->ow, ow = rem % p->ow;
        float term;
        if (avgpool_element(p, ah, aw, scales, idx, &term))
            avgpool_window_add(acc + idx / plane_out * plane_in, p->w, ah->start[oh],
                               ah->end[oh], aw->start[ow], aw->end[ow], term);
    }
    free(sorted);
    free(fill);
    return ok;
}

/* Unseeded: the elements in parallel, atomic adds racing as on the device. */
static void avgpool_scatter_atomic(const avgpool_params *p, const avgpool_axis *ah,
                                   const avgpool_axis *aw, const float *scales, float *acc)
{
    const int64_t plane_in = p->h * p->w, plane_out = p->oh * p->ow;
#pragma omp parallel for schedule(static)
    for (int64_t idx = 0; idx < p->planes * plane_out; idx++) {
        const int64_t rem = idx % plane_out, oh = rem / p->ow, ow = rem % p->ow;
        float term, *base = acc + idx / plane_out * plane_in;
        if (!avgpool_element(p, ah, aw, scales, idx, &term))
            continue; /* empty window */
        for (int64_t h = ah->start[oh]; h < ah->end[oh]; h++) {
            for (int64_t w = aw->start[ow]; w < aw->end[ow]; w++) {
#pragma omp atomic
                base[h * p->w + w] += term;
            }
        }
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
    if (perm != NULL) {
        bool ok = avgpool_scatter_seeded(p, ah, aw, scales, acc, perm);
        free(perm);
        if (!ok) {
            emu_set_error("aclnnAvgPool2dBackward: out of host memory for the shuffled order");
            return ACLNN_ERR_INNER;
        }
    } else {
        avgpool_scatter_atomic(p, ah, aw, scales, acc);
    }
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
