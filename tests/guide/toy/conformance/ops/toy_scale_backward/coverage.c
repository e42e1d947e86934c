/* The toy's coverage model: dtype × outcome. */
#include "toy_scale_backward.h"

enum { TOY_DTYPE, TOY_OUTCOME, TOY_COUNT };

static const cov_factor factors[TOY_COUNT] = {
    [TOY_DTYPE] = {"dtype", {"float32", "float16", "bfloat16"}, 3, false},
    [TOY_OUTCOME] = {"outcome", COV_OUTCOME_LEVELS, false},
};

static void levels(const cts_case *c, const ref_status_query *q, int outcome, uint32_t views,
                   uint32_t lv[])
{
    (void)q;
    (void)views;
    lv[TOY_DTYPE] = cov_bit(cov_dtype_level(c->dtype, false));
    lv[TOY_OUTCOME] = cov_bit(outcome);
}

const cov_model toy_scale_backward_coverage = {
    .factors = factors,
    .nfactors = TOY_COUNT,
    .outcome = TOY_OUTCOME,
    .levels = levels,
};
