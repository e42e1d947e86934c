/* The judge's batched pass (judge_batch.h): each step of cts_judge_finite_into one loop over the
 * batch, in integer operations and the same IEEE operations in the same order (ISO C mode
 * contracts nothing into an FMA), so every lane gives the scalar functions' bits. What the
 * vector code leaves to them (a subnormal of the dtype, a rounding on a midpoint with a low
 * part, Σ|terms| past the double range) is marked slow and judged by cts_judge_finite_into. */
#include "judge_batch.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_internal.h"

/* The loops compiled for x86-64-v4, x86-64-v3 and the baseline, the one the CPU runs chosen at
 * load. -DCTS_CHECK_NO_CLONES keeps one version, for the compiler's target (the tests build
 * this file so for the baseline too). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(CTS_CHECK_NO_CLONES)
#define BATCH_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define BATCH_CLONES
#endif

static inline uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double of_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* (double)n for 0 <= n < 2^52, exact, without a 64-bit integer conversion (AVX2 has none). */
static inline double small_u64_to_double(uint64_t n)
{
    return of_bits(n | 0x4330000000000000ull) - 0x1p52;
}

/* cts_tol_ratio with its division made unconditionally (by 1 where it would not be made), so
 * a vector without masked division (AVX2, the baseline) need not branch around it. */
static inline double ratio_lane(double err, double limit)
{
    double q = err / (limit > 0 ? limit : 1.0);
    return err == 0 ? 0 : limit > 0 ? q : INFINITY;
}

/* A narrow format: p significant bits, smallest and largest normal exponents (ref_rules.h). */
typedef struct { int p, emin, emax; } narrow_fmt;

static narrow_fmt fmt_of(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_FLOAT16: return (narrow_fmt){11, -14, 15};
    case REF_DT_BF16: return (narrow_fmt){8, -126, 127};
    default: return (narrow_fmt){24, -126, 127};
    }
}

/* ref_round_value's common case (round_to.c round_fast): hi normal in the format; slow where
 * hi is not, or sits on a midpoint with a low part (the low part's sign decides). */
static inline double round_lane(double hi, double lo, narrow_fmt f, int64_t *slow)
{
    uint64_t u = bits_of(hi), mag = u & ~(1ull << 63);
    int e = (int)(mag >> 52) - 1023, shift = 53 - f.p;
    uint64_t low = (1ull << shift) - 1;
    uint64_t m = (mag + (low >> 1) + ((mag >> shift) & 1)) & ~low;
    if ((int)(m >> 52) - 1023 > f.emax) m = 0x7ff0000000000000ull;
    double r = of_bits((u & (1ull << 63)) | m);
    bool mid = (mag & low) == 1ull << (shift - 1);
    *slow |= e < f.emin || e > 1022 || (lo != 0 && r != hi && mid);
    return r;
}

/* ulp_distance.c's ordinal_fast, zero included (its ordinal, 0, is what the general formula
 * gives); slow for a subnormal of the format, inf, or more than p significant bits. */
static inline int64_t ordinal_lane(double x, narrow_fmt f, int64_t *slow)
{
    uint64_t u = bits_of(x), frac = u & ((1ull << 52) - 1);
    int e = (int)(u >> 52 & 0x7ff) - 1023, shift = 53 - f.p;
    bool zero = (u & ~(1ull << 63)) == 0;
    *slow |= !zero && (e < f.emin || e > f.emax || (frac & ((1ull << shift) - 1)));
    /* the shift on the unsigned bits: below the format's normal range (a slow lane, its
     * value unused) the binade is negative, which a signed left shift may not take */
    uint64_t binade = (uint64_t)(int64_t)(e - f.emin + 1) << (f.p - 1);
    int64_t m = zero ? 0 : (int64_t)(binade + (frac >> shift));
    return u >> 63 ? -m : m;
}

/* err, rounded, ULP and relative error of each element. */
BATCH_CLONES
static void errors_loop(cts_judge_batch *b, narrow_fmt f)
{
    int n = b->n;
#pragma omp simd
    for (int j = 0; j < n; j++) {
        double hi = b->hi[j], got = b->got[j];
        int64_t slow = b->slow[j];
        double err = fabs((got - hi) - b->lo[j]);
        double r = round_lane(hi, b->lo[j], f, &slow);
        int64_t og = ordinal_lane(got, f, &slow), orr = ordinal_lane(r, f, &slow);
        b->err[j] = err;
        b->rounded[j] = r;
        b->metric[0][j] = small_u64_to_double((uint64_t)(og > orr ? og - orr : orr - og));
        b->metric[2][j] = ratio_lane(err, fabs(hi));
        b->slow[j] = slow;
    }
}

/* ref_bound_planned of each element (Σ|terms| within the double range), in bound units. */
BATCH_CLONES
static void bound_loop(cts_judge_batch *b, const ref_bound_plan *p)
{
    int n = b->n;
    double u_acc = p->u_acc, u_w0 = p->u_w0, eta_w = p->eta_w, u_g = p->u_g, eta_g = p->eta_g;
    double eta_sub = p->eta_under_sub, eta_under = p->eta_under, eta_acc = p->eta_acc;
    double u_16 = p->u_16, eta_16 = p->eta_16, u_out = p->u_out, eta_out = p->eta_out;
    /* the plan's switches as lane operations (GCC 12 keeps a loop whose selects test a scalar
     * bool scalar): a mask of the bits, a floor no weight passes, a limit no bits pass */
    uint64_t op_mask = p->operand ? ~0ull : 0, fp16_mask = p->result_fp16 ? ~0ull : 0;
    double w_floor = p->weight_eta ? 0 : INFINITY;
    int64_t sub_limit = eta_sub > 0 ? INT64_C(1) << 52 : 0;
#pragma omp simd
    for (int j = 0; j < n; j++) {
        /* (double)(n − 1) is (double)n − 1 for the counts a double holds (slow otherwise) */
        double nt = b->nterms[j], ops = b->nops[j];
        double k = ops + (nt > 1 ? nt - 1 : 0);
        double gamma = k * u_acc / (1 - k * u_acc);
        double S = b->sum_abs[j], w = b->min_weight[j];
        bool by_weight = w > w_floor;
        double w_eta = eta_w / (by_weight ? w : 1.0);
        double u_w = u_w0 + (by_weight ? w_eta : 0);
        double u_op = u_w + u_g + u_w * u_g;
        double op = of_bits(bits_of(u_op * S + nt * eta_g) & op_mask); /* or +0 */
        /* bound.c under_term: a subnormal under_mag by its bits (no subnormal operand) */
        double nops = ops > 0 ? ops : 1, um = b->under_mag[j];
        int64_t kb = (int64_t)bits_of(um);
        bool sub = kb > 0 && kb < sub_limit;
        double by_bits = small_u64_to_double((uint64_t)(sub ? kb : 0)) * eta_sub * nops;
        double by_mag = (sub ? 0 : um) * eta_under * nops;
        double under = sub ? by_bits : um > 0 ? by_mag : nt * nops * eta_acc;
        double E = gamma * S + (1 + gamma) * (op + b->coord_err[j] + under);
        double ahi = fabs(b->hi[j]);
        double E16 = E + (u_16 * (ahi + E) + eta_16);
        E = of_bits((bits_of(E16) & fp16_mask) | (bits_of(E) & ~fp16_mask));
        double bound = u_out * ahi + (1 + u_out) * E + eta_out;
        b->metric[1][j] = ratio_lane(b->err[j], bound);
    }
}

/* cts_policy_units of each element under t into units (the correctly rounded value's 0
 * included). */
BATCH_CLONES
static void policy_loop(const cts_judge_batch *b, const cts_tolerance *t, double *units)
{
    int n = b->n;
    switch (t->kind) {
    case CTS_TOL_ULP: {
        double ulps = t->ulps, by = ulps > 0 ? ulps : 1.0;
#pragma omp simd
        for (int j = 0; j < n; j++) {
            double ulp = b->metric[0][j], q = ulp / by;
            double u = ulps > 0 ? q : (ulp > 0 ? INFINITY : 0);
            units[j] = b->got[j] == b->rounded[j] ? 0 : u;
        }
        return;
    }
    case CTS_TOL_ALLCLOSE: {
        double atol = t->atol, rtol = t->rtol;
#pragma omp simd
        for (int j = 0; j < n; j++) {
            double u = ratio_lane(b->err[j], atol + rtol * fabs(b->hi[j]));
            units[j] = b->got[j] == b->rounded[j] ? 0 : u;
        }
        return;
    }
    case CTS_TOL_SHARE: {
        double rel = t->rel, small = t->small_threshold;
#pragma omp simd
        for (int j = 0; j < n; j++) {
            double ahi = fabs(b->hi[j]);
            /* fmax: neither is NaN; a zero of either sign gives the same ratio */
            double u = ratio_lane(b->err[j], rel * (ahi > small ? ahi : small));
            units[j] = b->got[j] == b->rounded[j] ? 0 : u;
        }
        return;
    }
    default:
#pragma omp simd
        for (int j = 0; j < n; j++)
            units[j] = b->got[j] == b->rounded[j] ? 0 : b->metric[1][j];
        return;
    }
}

/* stat_bin (check_internal.h) of each metric: a subnormal error is at most 2^-1022, far below
 * the lowest kept half-octave 2^-40, so bin 1 with no frexp. */
BATCH_CLONES
static void bins_loop(cts_judge_batch *b)
{
    int n = b->n;
    for (int m = 0; m < CTS_STAT_METRICS; m++) {
        const double *x = b->metric[m];
        int64_t *bin = b->bin[m];
#pragma omp simd
        for (int j = 0; j < n; j++) {
            uint64_t u = bits_of(x[j]), frac = u & ((1ull << 52) - 1);
            int be = (int)(u >> 52 & 0x7ff), e = be - 1022;
            double y = of_bits(frac | (1023ull << 52));
            int i = frac == 0 ? 2 * e - 2 : y < M_SQRT2 ? 2 * e - 1 : 2 * e;
            int k = i <= IMIN ? 1 : i > IMAX ? CTS_STAT_BINS - 2 : 2 + (i - IMIN - 1);
            if (be == 0) k = 1;
            if (!(x[j] > 0)) k = 0;
            if (!(x[j] < INFINITY)) k = CTS_STAT_BINS - 1;
            bin[j] = k;
        }
    }
}

/* The slow elements again through the scalar functions. */
static void judge_slow(cts_judge_batch *b, const ref_output *ref, const cts_tolerance *tol,
                       const cts_tolerance std[CTS_STAT_STANDARDS], const cts_judge_basis *basis)
{
    for (int j = 0; j < b->n; j++) {
        if (!b->slow[j]) continue;
        cts_elem_err e;
        cts_judge_finite_into(&e, tol, basis, b->got[j], &ref->v[b->at[j]]);
        b->err[j] = e.err;
        b->rounded[j] = e.rounded;
        b->metric[0][j] = e.ulp;
        b->metric[1][j] = e.bound_units;
        b->metric[2][j] = e.rel;
        b->policy_units[j] = e.policy_units;
        if (!std) continue;
        for (int s = 0; s < CTS_STAT_STANDARDS; s++)
            b->std_units[s][j] = cts_policy_units(&std[s], &e, b->got[j]);
        for (int m = 0; m < CTS_STAT_METRICS; m++)
            b->bin[m][j] = stat_bin(b->metric[m][j]);
    }
}

BATCH_CLONES
void cts_batch_totals_of(const cts_judge_batch *b, int e0, int e1, bool standards,
                         cts_batch_totals *t)
{
    const double *u = b->metric[0], *bu = b->metric[1], *rel = b->metric[2];
    const double *pu = b->policy_units;
    int64_t nan = 0, ok = 0;
    double m0 = 0, m1 = 0, m2 = 0, mp = 0; /* errors are >= +0 (never -0) */
#pragma omp simd reduction(+ : nan, ok) reduction(max : m0, m1, m2, mp)
    for (int e = e0; e < e1; e++) {
        nan += (u[e] != u[e]) | (bu[e] != bu[e]) | (rel[e] != rel[e]) | (pu[e] != pu[e]);
        ok += pu[e] <= 1;
        m0 = u[e] > m0 ? u[e] : m0;
        m1 = bu[e] > m1 ? bu[e] : m1;
        m2 = rel[e] > m2 ? rel[e] : m2;
        mp = pu[e] > mp ? pu[e] : mp;
    }
    *t = (cts_batch_totals){.nan = nan, .ok = ok, .max = {m0, m1, m2}, .policy_max = mp};
    for (int s = 0; standards && s < CTS_STAT_STANDARDS; s++) {
        const double *x = b->std_units[s];
        int64_t n = 0;
#pragma omp simd reduction(+ : n)
        for (int e = e0; e < e1; e++) n += x[e] <= 1;
        t->meets[s] = n;
    }
}

void cts_batch_judge(cts_judge_batch *b, const ref_output *ref, const cts_tolerance *tol,
                     const cts_tolerance std[CTS_STAT_STANDARDS], const cts_judge_basis *basis)
{
    errors_loop(b, fmt_of(basis->dt));
    bound_loop(b, &basis->bound);
    policy_loop(b, tol, b->policy_units);
    if (std) {
        for (int s = 0; s < CTS_STAT_STANDARDS; s++) policy_loop(b, &std[s], b->std_units[s]);
        bins_loop(b);
    }
    judge_slow(b, ref, tol, std, basis);
}

/* 1 where got is p and 0 or a value of the dtype (kind: cts_narrow_holds'), as checks.c's exact
 * test by plain_hi says. */
static inline uint8_t exact_lane(double got, float p, int kind)
{
    return (uint8_t)((got == (double)p) & ((got == 0) | cts_narrow_holds(got, kind)));
}

/* exact_lane over n elements into ex, for one kind (a constant where inlined) */
static inline void exact_lanes(const double *got, const float *ph, int n, int kind, uint8_t *ex)
{
#pragma omp simd
    for (int k = 0; k < n; k++) ex[k] = exact_lane(got[k], ph[k], kind);
}

/* Eight 0/1 bytes at p as bits 0 .. 7: each byte's bit lands at 56 + its index (the multiplier's
 * bits 56 - 7k; no two products share a bit, so nothing carries). */
static inline uint64_t pack8(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return (x * 0x0102040810204080ull) >> 56;
}

BATCH_CLONES
void cts_exact_mask(const double *got, const float *ph, int n, ref_dtype dt, uint64_t *m)
{
    uint8_t ex[CTS_EXACT_BLOCK];
    memset(ex + n, 0, sizeof ex - (size_t)n);
    switch (dt) {
    case REF_DT_FLOAT16: exact_lanes(got, ph, n, 2, ex); break;
    case REF_DT_BF16: exact_lanes(got, ph, n, 1, ex); break;
    default: exact_lanes(got, ph, n, 0, ex); break;
    }
    for (int w = 0; w < (n + 63) / 64; w++) {
        uint64_t x = 0;
        for (int q = 0; q < 8; q++) x |= pack8(ex + 64 * w + 8 * q) << (8 * q);
        m[w] = x;
    }
}
