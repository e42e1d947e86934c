/* The coverage model (coverage.h): factors and levels of each operator, the levels a case hits,
 * and the pairs no legal case can hit, with the contract's reason. */
#include "coverage.h"

#include <string.h>

#include "run/run.h"

const cov_model *cov_model_of(const cts_op_driver *op)
{
    return op->coverage;
}

/* ---- levels of a case ---- */

/* A view's kind: overlapping when two indices share an element (strides sorted by size must
 * each step over the extent of the smaller ones), transposed when the strides do not decrease
 * along the axes, strided when they leave gaps; else contiguous (offset is a separate bit). */
static uint32_t view_bits(const cts_tensor *t)
{
    if (t->null || t->rank <= 0) return 0;
    uint32_t b = t->offset > 0 ? cov_bit(COV_VIEW_OFFSET) : 0;
    if (!t->has_strides) return b | (t->offset > 0 ? 0 : cov_bit(COV_VIEW_CONTIGUOUS));
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
    if (overlap) return b | cov_bit(COV_VIEW_OVERLAPPING);
    if (transposed) return b | cov_bit(COV_VIEW_TRANSPOSED);
    if (gaps) return b | cov_bit(COV_VIEW_STRIDED);
    return b | (t->offset > 0 ? 0 : cov_bit(COV_VIEW_CONTIGUOUS));
}

void cov_case_levels(const cts_case *c, const cov_model *m, uint32_t lv[COV_MAX_FACTORS])
{
    memset(lv, 0, sizeof(uint32_t) * COV_MAX_FACTORS);
    ref_status_query q = cts_status_query(c);
    ref_status st = ref_expected_status(&q);
    int outcome = st.status != 0 ? COV_OUT_ERROR : st.runs ? COV_OUT_COMPUTES : COV_OUT_NOTHING;
    uint32_t views = 0;
    for (int i = 0; i < c->ntensors; i++) views |= view_bits(&c->t[i]);
    m->levels(c, &q, outcome, views, lv);
}

/* ---- pairs no legal case can hit ---- */

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
    const cov_factor *f = m->factors;
    for (int s = 0; s < 2; s++) {
        int a = s ? fb : fa, b = s ? fa : fb, bl = s ? la : lb;
        if (f[a].numeric && b == m->outcome && bl != COV_OUT_COMPUTES)
            return "a call that returns early computes nothing: numeric factors do not apply";
        if (!f[a].numeric || f[b].numeric) continue;
        /* a numeric level with a level that never computes */
        for (int i = 0; i < m->ninert; i++)
            if (m->inert[i].factor == b && m->inert[i].level == bl) return m->inert[i].why;
    }
    return NULL;
}

const char *cov_impossible(const cov_model *m, int fa, int la, int fb, int lb)
{
    const char *why = structural(m, fa, la, fb, lb);
    if (why) return why;
    return rule_match(m->rules, (size_t)m->nrules, fa, la, fb, lb);
}
