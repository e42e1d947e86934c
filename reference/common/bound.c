/* ref_bound: DESIGN's `bound` policy, |got − exact| ≤ the value below, per element.
 *
 * Model: the device evaluates the same sum of n = nterms terms in working precision u_acc (FP32,
 * or double for a DOUBLE vector path), each term reaching the sum after at most nops roundings,
 * optionally from operands first rounded to a narrower format (cube path), then rounds once to
 * the output dtype.
 * - Accumulation (Higham, Thm 3.1 / §3.1 for inner products): a sum of n terms, each carrying k
 *   roundings, summed in any order, errs by ≤ γ(k + n − 1)·Σ|terms|, γ(m) = m·u/(1 − m·u).
 * - Operand rounding (cube): the weight 1/div is rounded to the operand format (relative error
 *   u_o while normal, η_o/|w| when subnormal: η_o half the format's smallest subnormal); the
 *   gradient too when the operand is narrower than the input dtype (relative u_o plus absolute
 *   η_o·|w| ≤ η_o per term). A product of two perturbed factors: (1+a)(1+b) − 1 ≤ a + b + ab.
 *   These perturb the terms, so the accumulation γ applies to the perturbed Σ: factor (1+γ).
 * - Coordinates (grid sampler): coord_err bounds Σ|∂term/∂coordinate|·δ over the terms, δ the
 *   device's coordinate error (grid_sampler2d_backward.c derives δ); factor (1+γ) likewise.
 * - Underflow: products and quotients landing below the normal range err by η_acc absolutely
 *   (Higham §2.1: fl(x op y) = (x op y)(1+δ) + η); n·nops of them at most, each magnified by the
 *   factors that may multiply it afterwards (under_mag: Σ per term of the product of its factors
 *   above 1 in magnitude).
 * - Vendor lowerings (reference.h ref_path): a premultiplied term g·w carries the roundings of w
 *   and of g·w to the premultiplication's format, then the operand rounding; divide-fp16 rounds
 *   g and the divisor to FP16; an FP16 result (result_fp16) adds u_16·|computed| + η_16 before
 *   the output's rounding.
 * - Range: Σ|terms| past the double range (terms near DBL_MAX) is held in units of 2^sum_exp
 *   (ref_value), so γ·Σ|terms| stays finite while it is: E is formed in that unit.
 * - Output: RN to out_dtype adds u_out·|computed| ≤ u_out·(|exact| + E), and η_out below the
 *   normal range. A computed value within E of a finite exact one may pass the output's range
 *   where the exact value does not (FP16, exact 65504: an FP32 sum 16 above it rounds to inf):
 *   ref_bound_reaches_inf. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ref_internal.h"

/* The dtype's format; FP32's for a dtype without one (the harness's default output). */
static const ref_prec *prec_or_fp32(ref_dtype dt)
{
    const ref_prec *f = ref_dtype_prec(dt);
    return f ? f : ref_dtype_prec(REF_DT_FLOAT);
}

void ref_bound_plan_init(ref_bound_plan *b, ref_dtype out_dtype, const ref_path *path)
{
    const ref_prec *out = prec_or_fp32(out_dtype);
    /* The working format: FP32, or double for a DOUBLE vector path. */
    const ref_prec *acc = ref_dtype_prec(
        path->kind == REF_PATH_VECTOR && out_dtype == REF_DT_DOUBLE ? REF_DT_DOUBLE : REF_DT_FLOAT);
    *b = (ref_bound_plan){.u_out = out->unit_roundoff, .eta_out = out->eta,
                          .u_acc = acc->unit_roundoff, .eta_acc = acc->eta,
                          .eta_under = acc->eta / REF_UNDER_SCALE * 1.25,
                          .result_fp16 = path->result_fp16};
    double sub = ldexp(b->eta_under, -1074);
    b->eta_under_sub = sub >= DBL_MIN && ldexp(sub, 1074) == b->eta_under ? sub : 0;
    const ref_prec *h = ref_dtype_prec(REF_DT_FLOAT16);
    b->u_16 = h->unit_roundoff;
    b->eta_16 = h->eta;
    bool divide_fp16 = path->kind == REF_PATH_VECTOR && path->operand == REF_DT_FLOAT16;
    b->operand = path->kind == REF_PATH_CUBE || divide_fp16;
    if (!b->operand)
        return;
    ref_prec o = ref_operand_prec(path);
    /* the weight 1/div; on divide-fp16 the divisor, an integer far from the subnormals */
    b->u_w0 = o.unit_roundoff;
    b->eta_w = o.eta;
    b->weight_eta = !divide_fp16;
    /* the gradient, where the operand format is narrower than its dtype in precision, or in
     * range (FP16 operands of BF16 data, vendor contracts) */
    bool fp16_of_bf16 = out_dtype == REF_DT_BF16 && !path->hf32 && path->operand == REF_DT_FLOAT16;
    bool g_rounded = o.bits < out->bits || fp16_of_bf16;
    b->u_g = g_rounded ? o.unit_roundoff : 0;
    b->eta_g = g_rounded ? o.eta : 0;
    if (path->premul) { /* w rounded to T, g·w rounded to T, then to the operand format */
        const ref_prec *t = ref_dtype_prec(path->premul_fp16 ? REF_DT_FLOAT16 : REF_DT_FLOAT);
        bool narrower = o.bits < t->bits;
        b->u_w0 = t->unit_roundoff;
        b->eta_w = t->eta;
        b->weight_eta = true;
        b->u_g = t->unit_roundoff +
                 (narrower ? o.unit_roundoff + t->unit_roundoff * o.unit_roundoff : 0);
        b->eta_g = t->eta + (narrower ? o.eta : 0);
    }
}

/* ref_bound_planned where Σ|terms| passes the double range (v->sum_exp > 0): E in units of
 * 2^sum_exp, where S = sum_abs ≥ 2^960. The other parts, in real units, are scaled down (a value
 * below the normal range loses at most 2^-1075 of the unit there, far inside γ·S's margin of
 * 2^-40); the bound is taken back to real units, +inf where it passes the double range (then
 * every finite answer is within it). */
static double bound_past_range(const ref_bound_plan *b, const ref_value *v, double gamma,
                               double op_rel, double rest)
{
    int e = v->sum_exp;
    double S = v->sum_abs, hi = ldexp(fabs(v->hi), -e);
    double op = op_rel > 0 ? op_rel * S : 0; /* S may still be inf: no 0·inf */
    double E = (gamma * S + (1 + gamma) * (op + ldexp(rest, -e))) * (1 + 0x1p-40);
    if (b->result_fp16)
        E += b->u_16 * (hi + E) + ldexp(b->eta_16, -e);
    return ldexp(b->u_out * hi + (1 + b->u_out) * E, e) + b->eta_out;
}

/* The underflow term (below) of n terms of nops roundings each. under_mag is subnormal for most
 * grid sampler elements (its unit is 2^-1070), and x86 takes a microcode assist on an operation
 * with a subnormal operand (some hundred cycles an element judged): its bits k give
 * under_mag = k·2^-1074, and k·(eta_under·2^-1074), both factors exact doubles, is the same real
 * product rounded once. */
static double under_term(const ref_bound_plan *b, double under_mag, double n, double nops)
{
    int64_t k;
    memcpy(&k, &under_mag, sizeof k);
    if (k > 0 && k < (INT64_C(1) << 52) && b->eta_under_sub > 0) /* positive subnormal */
        return (double)k * b->eta_under_sub * nops;
    return under_mag > 0 ? under_mag * b->eta_under * nops : n * nops * b->eta_acc;
}

double ref_bound_planned(const ref_bound_plan *b, const ref_value *v)
{
    if (!isfinite(v->hi))
        return 0; /* NaN/Inf: the class must match exactly */
    double k = (double)v->nops + (double)(v->nterms > 1 ? v->nterms - 1 : 0);
    double gamma = k * b->u_acc / (1 - k * b->u_acc);
    double S = v->sum_abs, n = (double)v->nterms;
    double op = 0, u_op = 0;
    if (b->operand) {
        double u_w = b->u_w0 + (b->weight_eta && v->min_weight > 0 ? b->eta_w / v->min_weight : 0);
        u_op = u_w + b->u_g + u_w * b->u_g;
        op = u_op * S + n * b->eta_g;
    }
    /* Underflow: a product or quotient whose result is subnormal in the working format errs
     * by up to η_acc absolutely, not relatively (additions of subnormals are exact); each of a
     * term's nops roundings may be one. */
    double nops = (double)(v->nops > 0 ? v->nops : 1);
    double under = under_term(b, v->under_mag, n, nops);
    if (v->sum_exp > 0)
        return bound_past_range(b, v, gamma, u_op,
                                (b->operand ? n * b->eta_g : 0) + v->coord_err + under);
    double E = gamma * S + (1 + gamma) * (op + v->coord_err + under);
    if (b->result_fp16) /* the sum rounded to FP16 before the cast to out_dtype */
        E += b->u_16 * (fabs(v->hi) + E) + b->eta_16;
    return b->u_out * fabs(v->hi) + (1 + b->u_out) * E + b->eta_out;
}

double ref_bound(ref_dtype out_dtype, const ref_path *path, const ref_value *v)
{
    ref_bound_plan b;
    ref_bound_plan_init(&b, out_dtype, path);
    return ref_bound_planned(&b, v);
}

bool ref_bound_reaches_inf(ref_dtype out_dtype, double hi, double lo, double bound, double got)
{
    if (!isinf(got) || !isfinite(hi))
        return false;
    const ref_prec *out = prec_or_fp32(out_dtype);
    /* E ≤ bound − u_out·|hi| (the bound is u_out·|hi| + (1 + u_out)·E + η_out); the computed
     * value on got's side is at most s·hi + |lo| + E. It rounds to got from the largest finite
     * value plus half an ULP there (a tie rounds up: that significand is odd). Written as
     * d − (max − x) so nothing overflows; max − x is exact near the top (Sterbenz). */
    double x = got < 0 ? -hi : hi, d = (bound - out->unit_roundoff * fabs(hi)) + fabs(lo);
    return d - (out->max_finite - x) >= ldexp(out->unit_roundoff, out->emax);
}
