/* The avg-pool status tests' fixture, shared by the document's reading
 * (test_status_avgpool2d_backward.c) and the vendor releases' (test_status_vendor_…): the
 * document's example as every row's valid starting point, and the setters rows change it with. */
#ifndef ACLCTS_TESTS_REFERENCE_AVGPOOL_STATUS_SEED_H_
#define ACLCTS_TESTS_REFERENCE_AVGPOOL_STATUS_SEED_H_

#include "reference_avgpool2d_backward.h"
#include "status_rows.h"

#define SUPPORTED (ALL_P & ~P(ASCEND310B))          /* 000 "Applicable Products" */
#define TRAIN_INF (P(ASCEND910) | P(ASCEND310P))    /* "Atlas training / inference products" */
#define A2A3 (P(ASCEND910B) | P(ASCEND910_93))

static void set_array(ref_param *a, const int64_t *v, int64_t len)
{
    a->present = true;
    a->len = len;
    for (int64_t i = 0; i < len && i < REF_MAX_DIMS; i++)
        a->values[i] = v[i];
}
#define ARRAY(a, ...) \
    set_array(&q->p[REF_AVGPOOL_##a], (int64_t[]){__VA_ARGS__}, NARGS(__VA_ARGS__))
#define EMPTY_ARRAY(a) (q->p[REF_AVGPOOL_##a].present = true, q->p[REF_AVGPOOL_##a].len = 0)

/* Scalar parameter I of q set to x. */
#define SET(i, x) (q->p[REF_AVGPOOL_##i].values[0] = (x))

static void all_dtype(ref_status_query *q, ref_dtype dt)
{
    for (int i = 0; i < 3; i++)
        q->t[i].dtype = dt;
}
/* self = gradInput = (1,16,h,w); gradOutput = (1,16,oh,ow). */
static void shapes(ref_status_query *q, int64_t h, int64_t w, int64_t oh, int64_t ow)
{
    SHAPE(1, 1, 16, h, w);
    SHAPE(2, 1, 16, h, w);
    SHAPE(0, 1, 16, oh, ow);
}

/* 000 "Example": gradOutput (1,16,1,1), self = gradInput (1,16,4,4), FLOAT NCHW, kernel {4,4},
 * stride {1,1}, padding {0,0}, ceilMode false, countIncludePad true, divisor 0, cubeMathType 1
 * (valid on every product the op ships on; 4 < 10, so not the vendor code's global pooling). */
static ref_status_query seed(ref_product p, ref_spec s)
{
    ref_status_query q0 = {.op = REF_OP_AVGPOOL2D_BACKWARD, .product = p, .spec = s};
    ref_status_query *q = &q0;
    for (int i = 0; i < 3; i++) {
        q->t[i].present = true;
        q->t[i].format = REF_FMT_NCHW;
    }
    all_dtype(q, REF_DT_FLOAT);
    shapes(q, 4, 4, 1, 1);
    ARRAY(KERNEL_SIZE, 4, 4);
    ARRAY(STRIDE, 1, 1);
    ARRAY(PADDING, 0, 0);
    SET(COUNT_INCLUDE_PAD, true);
    SET(CUBE_MATH_TYPE, 1);
    return q0;
}

#endif
