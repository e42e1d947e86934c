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
 * - Output: RN to out_dtype adds u_out·|computed| ≤ u_out·(|exact| + E), and η_out below the
 *   normal range. */
#include <math.h>

#include "ref_internal.h"

static int prec_of(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_FLOAT16: return 11;
    case REF_DT_BF16: return 8;
    case REF_DT_DOUBLE: return 53;
    default: return 24;
    }
}

/* Half the smallest subnormal. HF32 keeps FP32's exponent range with `bits` significant bits,
 * so its subnormal quantum is 2^(-126-(bits-1)) (the emulation's model, facts §5 derived). */
static double eta_of(ref_dtype dt, bool hf32, int bits)
{
    if (hf32)
        return ldexp(1.0, -126 - bits);
    switch (dt) {
    case REF_DT_FLOAT16: return 0x1p-25;
    case REF_DT_BF16: return 0x1p-134;
    case REF_DT_DOUBLE: return 0x1p-1074; /* the smallest subnormal: 2^-1075 is not a double */
    default: return 0x1p-150;
    }
}

double ref_bound(ref_dtype out_dtype, const ref_path *path, const ref_value *v)
{
    if (!isfinite(v->hi))
        return 0; /* NaN/Inf: the class must match exactly */
    double u_out = ldexp(1.0, -prec_of(out_dtype));
    double u_acc = (path->kind == REF_PATH_VECTOR && out_dtype == REF_DT_DOUBLE) ? 0x1p-53 : 0x1p-24;
    double k = (double)v->nops + (double)(v->nterms > 1 ? v->nterms - 1 : 0);
    double gamma = k * u_acc / (1 - k * u_acc);
    double S = v->sum_abs, n = (double)v->nterms;
    double op = 0;
    if (path->kind == REF_PATH_CUBE) {
        int po = path->hf32 ? (path->hf32_bits > 0 ? path->hf32_bits : 11) : prec_of(path->operand);
        double u_o = ldexp(1.0, -po), eta = eta_of(path->operand, path->hf32, po);
        double u_w = u_o + (v->min_weight > 0 ? eta / v->min_weight : 0);
        bool g_rounded = po < prec_of(out_dtype);
        double u_g = g_rounded ? u_o : 0;
        op = (u_w + u_g + u_w * u_g) * S + (g_rounded ? n * eta : 0);
    }
    /* Underflow: a product or quotient whose result is subnormal in the working format errs
     * by up to η_acc absolutely, not relatively (additions of subnormals are exact); each of a
     * term's nops roundings may be one. */
    double eta_acc = u_acc == 0x1p-53 ? eta_of(REF_DT_DOUBLE, false, 53) : 0x1p-150;
    double under = (v->under_mag > 0 ? v->under_mag : n) * (double)(v->nops > 0 ? v->nops : 1) * eta_acc;
    double E = gamma * S + (1 + gamma) * (op + v->coord_err + under);
    return u_out * fabs(v->hi) + (1 + u_out) * E + eta_of(out_dtype, false, 0);
}
