/* The coverage model of aclnnAvgPool2dBackward (op_driver.h; coverage/ counts it): its factors
 * and levels, the levels a case hits, and the pairs no legal case can hit, with the contract's
 * reason. */
#include "avgpool2d_backward.h"


enum { AV_DTYPE, AV_VIEW, AV_RANK, AV_CHANNELS, AV_DET, AV_PATH, AV_CMT, AV_OUTCOME, AV_COUNT };
enum { P_VECTOR, P_FP16, P_BF16, P_HF32, P_FP32, P_GLOBAL_VECTOR, P_GLOBAL_CUBE };
enum { CMT_OUT_OF_RANGE = 4 };

static const cov_factor factors[AV_COUNT] = {
    [AV_DTYPE] = {"dtype", {"float32", "float16", "bfloat16"}, 3, false},
    [AV_VIEW] = {"view", COV_VIEW_LEVELS, false},
    [AV_RANK] = {"rank", {"3", "4"}, 2, false},
    [AV_CHANNELS] = {"channels", COV_CHANNEL_LEVELS, false},
    [AV_DET] = {"deterministic", {"off", "on"}, 2, true},
    [AV_PATH] = {"path", {"vector", "cube-fp16", "cube-bf16", "cube-hf32", "cube-fp32",
                          "global-vector", "global-cube"}, 7, true},
    [AV_CMT] = {"cube_math_type", {"0", "1", "2", "3", "out-of-range"}, 5, false},
    [AV_OUTCOME] = {"outcome", COV_OUTCOME_LEVELS, false},
};

/* Axis i of a length-1-or-2 list parameter (length 1: both axes); absent or empty, dflt. */
static int64_t axis(const cts_param *a, int i, int64_t dflt)
{
    if (a->null || a->len == 0) return dflt;
    return a->len > i ? a->v[i] : a->v[0];
}

/* Global pooling as the documents' path rule sees it: the window is the whole (unpadded)
 * plane, no divisor override (a rank the operator refuses has no plane). */
static bool global_pooling(const cts_case *c)
{
    const cts_tensor *self = &c->t[AVG_SELF];
    int r = self->rank;
    int64_t h = r >= 3 && r <= CTS_MAX_DIMS ? self->dims[r - 2] : 0;
    int64_t w = r >= 3 && r <= CTS_MAX_DIMS ? self->dims[r - 1] : 0;
    const cts_param *k = &c->param[AVG_KERNEL_SIZE], *pad = &c->param[AVG_PADDING];
    return axis(k, 0, 1) == h && axis(k, 1, 1) == w && axis(pad, 0, 0) == 0 &&
           axis(pad, 1, 0) == 0 && cts_param_int(c, AVG_DIVISOR_OVERRIDE) == 0;
}

static int path_level(const cts_case *c, const ref_status_query *q)
{
    /* the documents' rule for every case, also one written for a vendor contract, whose
     * lowering differs (docs/contract.md "Numerics") */
    ref_status_query doc = *q;
    doc.spec = REF_SPEC_DOC;
    ref_case_answer a;
    ref_case(&doc, &(ref_case_request){.dtype = c->dtype}, &a);
    ref_path path = a.path;
    bool cube = path.kind == REF_PATH_CUBE;
    if (global_pooling(c)) return cube ? P_GLOBAL_CUBE : P_GLOBAL_VECTOR;
    if (!cube) return P_VECTOR;
    if (path.hf32) return P_HF32;
    return path.operand == REF_DT_FLOAT16 ? P_FP16 : path.operand == REF_DT_BF16 ? P_BF16 : P_FP32;
}

static void levels(const cts_case *c, const ref_status_query *q, int outcome, uint32_t views,
                   uint32_t lv[])
{
    const cts_tensor *self = &c->t[AVG_SELF];
    bool computes = outcome == COV_OUT_COMPUTES;
    lv[AV_DTYPE] = cov_bit(cov_dtype_level(c->dtype, false));
    lv[AV_VIEW] = views;
    lv[AV_RANK] = self->rank == 3 ? cov_bit(0) : self->rank == 4 ? cov_bit(1) : 0;
    lv[AV_CHANNELS] = self->rank >= 3 ? cov_bit(cov_channel_level(self->dims[self->rank - 3])) : 0;
    lv[AV_DET] = computes ? cov_bit(c->deterministic) : 0;
    lv[AV_PATH] = computes ? cov_bit(path_level(c, q)) : 0;
    int8_t cmt = (int8_t)cts_param_int(c, AVG_CUBE_MATH_TYPE);
    lv[AV_CMT] = cov_bit(cmt >= 0 && cmt <= 3 ? cmt : CMT_OUT_OF_RANGE);
    lv[AV_OUTCOME] = cov_bit(outcome);
}

static const cov_rule rules[] = {
    {AV_OUTCOME, COV_OUT_COMPUTES, AV_CHANNELS, COV_CH_0,
     "C = 0 is an empty tensor: nothing is computed"},
    {AV_OUTCOME, COV_OUT_COMPUTES, AV_CMT, CMT_OUT_OF_RANGE,
     "a cubeMathType outside 0..3 is rejected (161002, or 161001 under vendor-old)"},
    {AV_OUTCOME, COV_OUT_NOTHING, AV_CMT, CMT_OUT_OF_RANGE,
     "the vendor releases check cubeMathType before the empty-tensor early return, and the "
     "documents make an empty tensor an error (docs/contract.md)"},
    {AV_DTYPE, 1, AV_PATH, P_BF16, "FLOAT16 inputs are FP16 cube operands (docs/contract.md Path)"},
    {AV_DTYPE, 1, AV_PATH, P_HF32, "FLOAT16 inputs are FP16 cube operands (docs/contract.md Path)"},
    {AV_DTYPE, 1, AV_PATH, P_FP32, "FLOAT16 inputs are FP16 cube operands (docs/contract.md Path)"},
    {AV_DTYPE, 2, AV_PATH, P_FP16, "BF16 inputs are BF16 cube operands (docs/contract.md Path)"},
    {AV_DTYPE, 2, AV_PATH, P_HF32, "BF16 inputs are BF16 cube operands (docs/contract.md Path)"},
    {AV_DTYPE, 2, AV_PATH, P_FP32, "BF16 inputs are BF16 cube operands (docs/contract.md Path)"},
    {AV_DTYPE, 0, AV_PATH, P_BF16, "FLOAT operands are FP32, FP16 or HF32, never BF16"},
    {AV_PATH, P_HF32, AV_CMT, 0, "cubeMathType 0 (KEEP_DTYPE) keeps FP32 operands, not HF32"},
    {AV_PATH, P_HF32, AV_CMT, 2, "cubeMathType 2 (USE_FP16) gives FP16 operands, not HF32"},
    {AV_PATH, P_FP32, AV_CMT, 1, "only cubeMathType 0 keeps FP32 operands"},
    {AV_PATH, P_FP32, AV_CMT, 2, "only cubeMathType 0 keeps FP32 operands"},
    {AV_PATH, P_FP32, AV_CMT, 3, "only cubeMathType 0 keeps FP32 operands"},
    {AV_PATH, P_FP16, AV_CMT, 3,
     "cubeMathType 3 is HF32 for FLOAT and rejected for FLOAT16 wherever the cube runs"},
    {AV_PATH, P_BF16, AV_CMT, 2, "USE_FP16 is rejected for BF16 wherever the cube runs"},
    {AV_PATH, P_BF16, AV_CMT, 3, "USE_HF32 is rejected for BF16 wherever the cube runs"},
};

static const cov_inert inert[] = {
    {AV_CHANNELS, COV_CH_0, "C = 0 is an empty tensor: nothing is computed"},
    {AV_CMT, CMT_OUT_OF_RANGE, "a cubeMathType outside 0..3 is rejected before anything is "
     "computed"},
};

/* gradOutput, self, gradInput: NCHW (NCL at rank 3); channels-last puts C innermost */
#define NCHW {{"n", "c", "h", "w"}, 1, false, "channels-last"}
static const cov_view_layout views[AVG_NTENSORS] = {NCHW, NCHW, NCHW};

const cov_model avgpool2d_backward_coverage = {
    .factors = factors,
    .nfactors = AV_COUNT,
    .outcome = AV_OUTCOME,
    .rules = rules,
    .nrules = sizeof rules / sizeof rules[0],
    .inert = inert,
    .ninert = sizeof inert / sizeof inert[0],
    .levels = levels,
    .views = views,
};
