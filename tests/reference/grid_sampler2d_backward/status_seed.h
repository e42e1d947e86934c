/* The grid sampler status tests' fixture, shared by the document's reading
 * (test_status_grid_sampler2d_backward.c) and the vendor releases' (test_status_vendor_…): the
 * document's example as every row's valid starting point, and the setters rows change it with. */
#ifndef ACLCTS_TESTS_REFERENCE_GRID_STATUS_SEED_H_
#define ACLCTS_TESTS_REFERENCE_GRID_STATUS_SEED_H_

#include "reference_grid_sampler2d_backward.h"
#include "status_rows.h"

#define UNSHIPPED (P(ASCEND310P) | P(ASCEND310B)) /* 003 "Applicable Products" × */
#define SUPPORTED (ALL_P & ~UNSHIPPED)

static void set_mask(ref_status_query *q, const bool *m, int len)
{
    q->p[REF_GRID_OUTPUT_MASK].present = true;
    q->p[REF_GRID_OUTPUT_MASK].len = len;
    for (int i = 0; i < len; i++)
        q->p[REF_GRID_OUTPUT_MASK].values[i] = m[i];
}
#define MASK(...) set_mask(q, (bool[]){__VA_ARGS__}, (int)sizeof((bool[]){__VA_ARGS__}))

/* Scalar parameter I of q set to x. */
#define SET(i, x) (q->p[REF_GRID_##i].values[0] = (x))

static void all_dtype(ref_status_query *q, ref_dtype dt)
{
    for (int i = 0; i < 5; i++)
        q->t[i].dtype = dt;
}
/* input = inputGrad (n,c,hi,wi); gradOutput (n,c,ho,wo); grid = gridGrad (n,ho,wo,2). */
static void shapes(ref_status_query *q, int64_t n, int64_t c, int64_t hi, int64_t wi, int64_t ho,
                   int64_t wo)
{
    SHAPE(0, n, c, ho, wo);
    SHAPE(1, n, c, hi, wi);
    SHAPE(2, n, ho, wo, 2);
    SHAPE(3, n, c, hi, wi);
    SHAPE(4, n, ho, wo, 2);
}

/* 003 "Example": gradOutput (1,1,3,3), input = inputGrad (1,1,5,8), grid = gridGrad (1,3,3,2),
 * FLOAT, ND, bilinear, zeros, alignCorners false, outputMask {true, true}. */
static ref_status_query seed(ref_product p, ref_spec s)
{
    ref_status_query q0 = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = p, .spec = s};
    ref_status_query *q = &q0;
    for (int i = 0; i < 5; i++) {
        q->t[i].present = true;
        q->t[i].format = REF_FMT_ND;
    }
    all_dtype(q, REF_DT_FLOAT);
    shapes(q, 1, 1, 5, 8, 3, 3);
    MASK(true, true);
    return q0;
}

#endif
