/* The coverage model of aclnnGridSampler2DBackward (op_driver.h; coverage/ counts it): its
 * factors and levels, the levels a case hits, and the pairs no legal case can hit, with the
 * contract's reason. */
#include "grid_sampler2d_backward.h"


enum { GS_DTYPE, GS_VIEW, GS_CHANNELS, GS_DET, GS_INTERP, GS_PAD, GS_ALIGN, GS_MASK, GS_OUTCOME,
       GS_COUNT };
enum { MASK_BOTH, MASK_INPUT_GRAD, MASK_GRID_GRAD, MASK_NONE };

static const cov_factor factors[GS_COUNT] = {
    [GS_DTYPE] = {"dtype", {"float32", "float16", "bfloat16", "float64"}, 4, false},
    [GS_VIEW] = {"view", COV_VIEW_LEVELS, false},
    [GS_CHANNELS] = {"channels", COV_CHANNEL_LEVELS, false},
    [GS_DET] = {"deterministic", {"off", "on"}, 2, true},
    [GS_INTERP] = {"interpolation", {"bilinear", "nearest", "bicubic"}, 3, true},
    [GS_PAD] = {"padding", {"zeros", "border", "reflection"}, 3, true},
    [GS_ALIGN] = {"align_corners", {"false", "true"}, 2, true},
    [GS_MASK] = {"output_mask", {"both", "input_grad", "grid_grad", "none"}, 4, false},
    [GS_OUTCOME] = {"outcome", COV_OUTCOME_LEVELS, false},
};

/* The outputs the reference's plan of the case computes (outputMask; a missing entry is
 * false). */
static int mask_level(const cts_case *c, const ref_status_query *q)
{
    ref_case_answer plan;
    (void)ref_case(q, &(ref_case_request){.dtype = c->dtype}, &plan);
    bool dx = plan.computed[GRID_INPUT_GRAD], dg = plan.computed[GRID_GRID_GRAD];
    return dx && dg ? MASK_BOTH : dx ? MASK_INPUT_GRAD : dg ? MASK_GRID_GRAD : MASK_NONE;
}

static void levels(const cts_case *c, const ref_status_query *q, int outcome, uint32_t views,
                   uint32_t lv[])
{
    const cts_tensor *in = &c->t[GRID_INPUT];
    bool computes = outcome == COV_OUT_COMPUTES;
    int64_t interp = cts_param_int(c, GRID_INTERPOLATION_MODE);
    int64_t pad = cts_param_int(c, GRID_PADDING_MODE);
    lv[GS_DTYPE] = cov_bit(cov_dtype_level(c->dtype, true));
    lv[GS_VIEW] = views;
    lv[GS_CHANNELS] = in->rank == 4 ? cov_bit(cov_channel_level(in->dims[1])) : 0;
    lv[GS_DET] = computes ? cov_bit(c->deterministic) : 0;
    lv[GS_INTERP] = computes && interp >= 0 && interp <= 2 ? cov_bit((int)interp) : 0;
    lv[GS_PAD] = computes && pad >= 0 && pad <= 2 ? cov_bit((int)pad) : 0;
    lv[GS_ALIGN] = computes ? cov_bit(cts_param_bool(c, GRID_ALIGN_CORNERS)) : 0;
    lv[GS_MASK] = cov_bit(mask_level(c, q));
    lv[GS_OUTCOME] = cov_bit(outcome);
}

static const cov_rule rules[] = {
    {GS_OUTCOME, COV_OUT_COMPUTES, GS_MASK, MASK_NONE,
     "an outputMask that selects nothing is a success with nothing to compute"},
    {GS_CHANNELS, COV_CH_0, GS_INTERP, 2,
     "bicubic is accepted only under the 9.1 and 9.2 releases' code (docs/contract.md), which "
     "returns early on an empty gradOutput (C = 0): nothing is computed"},
    {GS_DTYPE, 3, GS_DET, 1,
     "determinism is promised only for dtypes other than DOUBLE (spec/003): no case may "
     "demand it"},
};

static const cov_inert inert[] = {
    {GS_MASK, MASK_NONE, "an outputMask that selects nothing computes nothing"},
};

/* gradOutput, input, inputGrad NCHW (channels-last: C innermost); grid and gridGrad
 * (N, Hout, Wout, 2) with the x and y planes apart (the pair dim outermost) */
#define NCHW {{"n", "c", "h", "w"}, 1, false, "channels-last"}
#define POINTS {{"n", "h", "w", "xy"}, 3, true, "xy-planar"}
static const cov_view_layout views[GRID_NTENSORS] = {
    [GRID_GRAD_OUTPUT] = NCHW, [GRID_INPUT] = NCHW, [GRID_GRID] = POINTS,
    [GRID_INPUT_GRAD] = NCHW, [GRID_GRID_GRAD] = POINTS,
};

const cov_model grid_sampler2d_backward_coverage = {
    .factors = factors,
    .nfactors = GS_COUNT,
    .outcome = GS_OUTCOME,
    .rules = rules,
    .nrules = sizeof rules / sizeof rules[0],
    .inert = inert,
    .ninert = sizeof inert / sizeof inert[0],
    .levels = levels,
    .views = views,
};
