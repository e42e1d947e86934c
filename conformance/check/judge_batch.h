/* The judge's batched pass: the errors of a run of plain elements (no reference flags, finite
 * exact value, finite result) in structure-of-arrays form, computed over whole vectors, what
 * cts_judge_finite_into, cts_policy_units and stat_bin give one element at a time, bit for bit
 * (checks.c adds them to the summaries, statistics and map in index order). */
#ifndef ACLCTS_CONFORMANCE_JUDGE_BATCH_H_
#define ACLCTS_CONFORMANCE_JUDGE_BATCH_H_

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "tolerance.h"

#define CTS_BATCH 256

typedef struct {
    int n;
    int64_t at[CTS_BATCH];     /* the elements' indices in their chunk, ascending */
    /* the inputs, gathered */
    double hi[CTS_BATCH], lo[CTS_BATCH], got[CTS_BATCH], sum_abs[CTS_BATCH];
    double nterms[CTS_BATCH], nops[CTS_BATCH]; /* converted here: exact where not slow */
    double coord_err[CTS_BATCH], min_weight[CTS_BATCH], under_mag[CTS_BATCH];
    /* the judgement: cts_elem_err's fields and the audit's */
    double err[CTS_BATCH], rounded[CTS_BATCH];
    double metric[CTS_STAT_METRICS][CTS_BATCH]; /* ulp, bound units, rel */
    double policy_units[CTS_BATCH];
    int64_t bin[CTS_STAT_METRICS][CTS_BATCH];   /* stat_bin of each metric (lane-wide) */
    double std_units[CTS_STAT_STANDARDS][CTS_BATCH]; /* standard s accepts where <= 1 */
    int64_t slow[CTS_BATCH];   /* left to the scalar functions (lane-wide: see errors_loop) */
} cts_judge_batch;

/* Whether the batched pass serves dtype dt (the narrow formats; DOUBLE keeps the per-element
 * path). */
static inline bool cts_batch_dtype(ref_dtype dt)
{
    return dt == REF_DT_FLOAT16 || dt == REF_DT_BF16 || dt == REF_DT_FLOAT;
}

/* Appends chunk element i (plain: see above) to the batch. */
static inline void cts_batch_push(cts_judge_batch *b, const ref_value *v, int64_t i, double got)
{
    int j = b->n++;
    b->at[j] = i;
    b->hi[j] = v->hi;
    b->lo[j] = v->lo;
    b->got[j] = got;
    b->sum_abs[j] = v->sum_abs;
    b->nterms[j] = (double)v->nterms;
    b->nops[j] = (double)v->nops;
    b->coord_err[j] = v->coord_err;
    b->min_weight[j] = v->min_weight;
    b->under_mag[j] = v->under_mag;
    /* Σ|terms| past the double range; a term count a double does not hold exactly */
    b->slow[j] = v->sum_exp != 0 || v->nterms > (INT64_C(1) << 53);
}

/* What batch elements [e0, e1) add to the maxima and counts, when none of their errors is NaN
 * (nan 0; then the largest of each is the same in any order): the largest of each metric and
 * of the policy units, the elements the policy and each standard accept (std_units only with
 * `standards`). */
typedef struct {
    int64_t nan, ok, meets[CTS_STAT_STANDARDS];
    double max[CTS_STAT_METRICS], policy_max;
} cts_batch_totals;
void cts_batch_totals_of(const cts_judge_batch *b, int e0, int e1, bool standards,
                         cts_batch_totals *t);

/* Judges the batch's elements under tol; with std (the audit's standards, or NULL) also their
 * bins and their errors in each standard's units. ref holds the elements (the slow ones are
 * judged from it by the scalar functions). */
void cts_batch_judge(cts_judge_batch *b, const ref_output *ref, const cts_tolerance *tol,
                     const cts_tolerance std[CTS_STAT_STANDARDS], const cts_judge_basis *basis);

/* The exact elements by plain_hi (ph: a finite float or NaN) of CTS_EXACT_BLOCK elements or
 * fewer: bit k of m[k / 64] set where got[k] == ph[k] and got[k] is 0 or a value of dt (FLOAT,
 * FLOAT16 or BF16; checks.c's exact test), bits from n on clear. */
#define CTS_EXACT_BLOCK 512
void cts_exact_mask(const double *got, const float *ph, int n, ref_dtype dt, uint64_t *m);

#endif
