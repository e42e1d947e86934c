/* The coverage model (coverage.h): factors and levels of each operator, the levels a case hits,
 * and the pairs no legal case can hit, with the contract's reason. */
#include "coverage.h"

#include <string.h>

#include "run/run.h"

/* ---- factors ---- */

enum { AV_DTYPE, AV_VIEW, AV_RANK, AV_CHANNELS, AV_DET, AV_PATH, AV_CMT, AV_OUTCOME, AV_COUNT };
enum { GS_DTYPE, GS_VIEW, GS_CHANNELS, GS_DET, GS_INTERP, GS_PAD, GS_ALIGN, GS_MASK, GS_OUTCOME,
       GS_COUNT };

#define VIEW_LEVELS {"contiguous", "offset", "strided", "overlapping", "transposed"}, 5
#define CHANNEL_LEVELS {"0", "1", "odd", "even", "around-2048"}, 5
#define OUTCOME_LEVELS {"computes", "error", "nothing"}, 3
enum { VIEW_CONTIGUOUS, VIEW_OFFSET, VIEW_STRIDED, VIEW_OVERLAPPING, VIEW_TRANSPOSED };
enum { CH_0, CH_1, CH_ODD, CH_EVEN, CH_2048 };
enum { OUT_COMPUTES, OUT_ERROR, OUT_NOTHING };
enum { P_VECTOR, P_FP16, P_BF16, P_HF32, P_FP32, P_GLOBAL_VECTOR, P_GLOBAL_CUBE };
enum { CMT_OUT_OF_RANGE = 4 };

static const cov_factor avgpool_factors[AV_COUNT] = {
    [AV_DTYPE] = {"dtype", {"float32", "float16", "bfloat16"}, 3, false},
    [AV_VIEW] = {"view", VIEW_LEVELS, false},
    [AV_RANK] = {"rank", {"3", "4"}, 2, false},
    [AV_CHANNELS] = {"channels", CHANNEL_LEVELS, false},
    [AV_DET] = {"deterministic", {"off", "on"}, 2, true},
    [AV_PATH] = {"path", {"vector", "cube-fp16", "cube-bf16", "cube-hf32", "cube-fp32",
                          "global-vector", "global-cube"}, 7, true},
    [AV_CMT] = {"cube_math_type", {"0", "1", "2", "3", "out-of-range"}, 5, false},
    [AV_OUTCOME] = {"outcome", OUTCOME_LEVELS, false},
};

static const cov_factor grid_factors[GS_COUNT] = {
    [GS_DTYPE] = {"dtype", {"float32", "float16", "bfloat16", "float64"}, 4, false},
    [GS_VIEW] = {"view", VIEW_LEVELS, false},
    [GS_CHANNELS] = {"channels", CHANNEL_LEVELS, false},
    [GS_DET] = {"deterministic", {"off", "on"}, 2, true},
    [GS_INTERP] = {"interpolation", {"bilinear", "nearest"}, 2, true},
    [GS_PAD] = {"padding", {"zeros", "border", "reflection"}, 3, true},
    [GS_ALIGN] = {"align_corners", {"false", "true"}, 2, true},
    [GS_MASK] = {"output_mask", {"both", "input_grad", "grid_grad", "none"}, 4, false},
    [GS_OUTCOME] = {"outcome", OUTCOME_LEVELS, false},
};

static const cov_model models[] = {
    {REF_OP_AVGPOOL2D_BACKWARD, avgpool_factors, AV_COUNT},
    {REF_OP_GRID_SAMPLER2D_BACKWARD, grid_factors, GS_COUNT},
};

const cov_model *cov_model_of(ref_op op)
{
    return op == REF_OP_AVGPOOL2D_BACKWARD ? &models[0] : &models[1];
}

/* ---- levels of a case ---- */

static uint32_t bit(int level) { return level < 0 ? 0 : 1u << level; }

static int dtype_level(ref_dtype dt, bool with_double)
{
    switch (dt) {
    case REF_DT_FLOAT: return 0;
    case REF_DT_FLOAT16: return 1;
    case REF_DT_BF16: return 2;
    case REF_DT_DOUBLE: return with_double ? 3 : -1;
    default: return -1;
    }
}

/* A view's kind: overlapping when two indices share an element (strides sorted by size must
 * each step over the extent of the smaller ones), transposed when the strides do not decrease
 * along the axes, strided when they leave gaps; else contiguous (offset is a separate bit). */
static uint32_t view_bits(const cts_tensor *t)
{
    if (t->null || t->rank <= 0) return 0;
    uint32_t b = t->offset > 0 ? bit(VIEW_OFFSET) : 0;
    if (!t->has_strides) return b | (t->offset > 0 ? 0 : bit(VIEW_CONTIGUOUS));
    int order[CTS_MAX_DIMS], n = 0;
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] > 1) order[n++] = i;
    for (int i = 1; i < n; i++) /* insertion sort by |stride| */
        for (int j = i; j > 0; j--) {
            int64_t a = t->strides[order[j - 1]], c = t->strides[order[j]];
            if ((a < 0 ? -a : a) <= (c < 0 ? -c : c)) break;
            int tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp;
        }
    int64_t extent = 1;
    bool gaps = false, overlap = false, transposed = false;
    for (int k = 0; k < n; k++) {
        int64_t s = t->strides[order[k]] < 0 ? -t->strides[order[k]] : t->strides[order[k]];
        overlap = overlap || s < extent;
        gaps = gaps || s > extent;
        extent = s * t->dims[order[k]] > extent ? s * t->dims[order[k]] : extent;
        transposed = transposed || (k > 0 && order[k] > order[k - 1]);
    }
    if (overlap) return b | bit(VIEW_OVERLAPPING);
    if (transposed) return b | bit(VIEW_TRANSPOSED);
    if (gaps) return b | bit(VIEW_STRIDED);
    return b | (t->offset > 0 ? 0 : bit(VIEW_CONTIGUOUS));
}

static int channel_level(int64_t c)
{
    if (c <= 0) return c == 0 ? CH_0 : -1;
    if (c >= 2047) return CH_2048;
    return c == 1 ? CH_1 : c % 2 ? CH_ODD : CH_EVEN;
}

static int avgpool_path_level(const cts_case *c)
{
    ref_avgpool_params p;
    cts_avgpool_params(c, &p);
    /* The model's path factor is the documents' rule (docs/contract.md "Path") for every case,
     * also one written for a vendor contract, whose lowering differs ("Numerics"). */
    ref_path path = ref_avgpool_path(c->product, &p, c->dtype, (int)c->cube_math_type);
    bool cube = path.kind == REF_PATH_CUBE;
    if (p.kh == p.h && p.kw == p.w && p.ph == 0 && p.pw == 0 && p.divisor_override == 0)
        return cube ? P_GLOBAL_CUBE : P_GLOBAL_VECTOR;
    if (!cube) return P_VECTOR;
    if (path.hf32) return P_HF32;
    return path.operand == REF_DT_FLOAT16 ? P_FP16 : path.operand == REF_DT_BF16 ? P_BF16 : P_FP32;
}

static int mask_level(const cts_case *c)
{
    bool dx = !c->output_mask_null && c->output_mask_len > 0 && c->output_mask[0];
    bool dg = !c->output_mask_null && c->output_mask_len > 1 && c->output_mask[1];
    return dx && dg ? 0 : dx ? 1 : dg ? 2 : 3;
}

void cov_case_levels(const cts_case *c, const cov_model *m, uint32_t lv[COV_MAX_FACTORS])
{
    memset(lv, 0, sizeof(uint32_t) * COV_MAX_FACTORS);
    ref_status_query q = cts_status_query(c);
    ref_status st = ref_expected_status(&q);
    int outcome = st.status != 0 ? OUT_ERROR : st.runs ? OUT_COMPUTES : OUT_NOTHING;
    uint32_t views = 0;
    for (int i = 0; i < c->ntensors; i++) views |= view_bits(&c->t[i]);
    bool computes = outcome == OUT_COMPUTES;
    if (m->op == REF_OP_AVGPOOL2D_BACKWARD) {
        const cts_tensor *self = &c->t[1];
        lv[AV_DTYPE] = bit(dtype_level(c->dtype, false));
        lv[AV_VIEW] = views;
        lv[AV_RANK] = self->rank == 3 ? bit(0) : self->rank == 4 ? bit(1) : 0;
        lv[AV_CHANNELS] = self->rank >= 3 ? bit(channel_level(self->dims[self->rank - 3])) : 0;
        lv[AV_DET] = computes ? bit(c->deterministic) : 0;
        lv[AV_PATH] = computes ? bit(avgpool_path_level(c)) : 0;
        int8_t cmt = (int8_t)c->cube_math_type;
        lv[AV_CMT] = bit(cmt >= 0 && cmt <= 3 ? cmt : CMT_OUT_OF_RANGE);
        lv[AV_OUTCOME] = bit(outcome);
        return;
    }
    const cts_tensor *in = &c->t[1];
    lv[GS_DTYPE] = bit(dtype_level(c->dtype, true));
    lv[GS_VIEW] = views;
    lv[GS_CHANNELS] = in->rank == 4 ? bit(channel_level(in->dims[1])) : 0;
    lv[GS_DET] = computes ? bit(c->deterministic) : 0;
    lv[GS_INTERP] = computes && c->interpolation_mode >= 0 && c->interpolation_mode <= 1
                        ? bit((int)c->interpolation_mode) : 0;
    lv[GS_PAD] = computes && c->padding_mode >= 0 && c->padding_mode <= 2
                     ? bit((int)c->padding_mode) : 0;
    lv[GS_ALIGN] = computes ? bit(c->align_corners) : 0;
    lv[GS_MASK] = bit(mask_level(c));
    lv[GS_OUTCOME] = bit(outcome);
}

/* ---- pairs no legal case can hit ---- */

typedef struct {
    int fa, la, fb, lb; /* la/lb -1: any level */
    const char *why;
} cov_rule;

static const cov_rule avgpool_rules[] = {
    {AV_OUTCOME, OUT_COMPUTES, AV_CHANNELS, CH_0, "C = 0 is an empty tensor: nothing is computed"},
    {AV_OUTCOME, OUT_COMPUTES, AV_CMT, CMT_OUT_OF_RANGE,
     "a cubeMathType outside 0..3 is rejected (161002, or 161001 under vendor-old)"},
    {AV_OUTCOME, OUT_NOTHING, AV_CMT, CMT_OUT_OF_RANGE,
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

static const cov_rule grid_rules[] = {
    {GS_OUTCOME, OUT_COMPUTES, GS_MASK, 3,
     "an outputMask that selects nothing is a success with nothing to compute"},
    {GS_DTYPE, 3, GS_DET, 1,
     "determinism is promised only for dtypes other than DOUBLE (spec/003): no case may "
     "demand it"},
};

static const char *rule_match(const cov_rule *r, size_t n, int fa, int la, int fb, int lb)
{
    for (size_t i = 0; i < n; i++) {
        if (r[i].fa == fa && r[i].la == la && r[i].fb == fb && r[i].lb == lb) return r[i].why;
        if (r[i].fa == fb && r[i].la == lb && r[i].fb == fa && r[i].lb == la) return r[i].why;
    }
    return NULL;
}

/* The rules that follow from the levels' meaning rather than the contract's tables. */
static const char *structural(const cov_model *m, int fa, int la, int fb, int lb)
{
    int outcome = m->op == REF_OP_AVGPOOL2D_BACKWARD ? AV_OUTCOME : GS_OUTCOME;
    const cov_factor *f = m->factors;
    for (int s = 0; s < 2; s++) {
        int a = s ? fb : fa, al = s ? lb : la, b = s ? fa : fb, bl = s ? la : lb;
        if (f[a].numeric && b == outcome && bl != OUT_COMPUTES)
            return "a call that returns early computes nothing: numeric factors do not apply";
        if (!f[a].numeric || f[b].numeric) continue;
        /* a numeric level with a level that never computes */
        if (m->op == REF_OP_AVGPOOL2D_BACKWARD && b == AV_CHANNELS && bl == CH_0)
            return "C = 0 is an empty tensor: nothing is computed";
        if (m->op == REF_OP_AVGPOOL2D_BACKWARD && b == AV_CMT && bl == CMT_OUT_OF_RANGE)
            return "a cubeMathType outside 0..3 is rejected before anything is computed";
        if (m->op == REF_OP_GRID_SAMPLER2D_BACKWARD && b == GS_MASK && bl == 3)
            return "an outputMask that selects nothing computes nothing";
        (void)al;
    }
    return NULL;
}

const char *cov_impossible(const cov_model *m, int fa, int la, int fb, int lb)
{
    const char *why = structural(m, fa, la, fb, lb);
    if (why) return why;
    if (m->op == REF_OP_AVGPOOL2D_BACKWARD)
        return rule_match(avgpool_rules, sizeof avgpool_rules / sizeof avgpool_rules[0], fa, la,
                          fb, lb);
    return rule_match(grid_rules, sizeof grid_rules / sizeof grid_rules[0], fa, la, fb, lb);
}
