/* Each record against its own figures and its case (package.h): a status that does not count
 * against the verdict (PASS, NOT_SUPPORTED, WAIVED) must be one the record's other fields and
 * the suite's case allow. A record edited from FAIL to PASS keeps the figures that failed it
 * unless the forger rewrites them too; this check catches the first, re-judging the evidence
 * (rejudge.c) the second. */
#include "package.h"

#include <stdlib.h>
#include <string.h>

#include "run/run.h"

#define MAX_LINES 20

static int by_id(const void *a, const void *b)
{
    return strcmp((*(const cts_case *const *)a)->id, (*(const cts_case *const *)b)->id);
}

static int id_vs_case(const void *id, const void *c)
{
    return strcmp(id, (*(const cts_case *const *)c)->id);
}

/* Elements in histogram bins above 1 (bins are half-open, so bound units <= 1 never share a bin
 * with more). */
static uint64_t over_one(const uint32_t *hist)
{
    uint64_t n = 0;
    for (int b = 0; b < CTS_STAT_BINS; b++)
        if (cts_stat_bin_upper(b) > 1) n += hist[b];
    return n;
}

/* Why a PASS record contradicts itself or its case, or NULL. */
static const char *pass_contradiction(const cts_result *r, const cts_case *c, char *why,
                                      size_t len)
{
    const cts_verdict *v = &r->v;
    const cts_tolerance *tol = &c->tolerance;
    if (v->check[0])
        snprintf(why, len, "PASS, yet it names the failing check '%s'", v->check);
    else if (v->got_status != v->expected_status)
        snprintf(why, len, "PASS, yet the device returned status %d and %d was expected",
                 v->got_status, v->expected_status);
    else if (strstr(v->message, "elements out of tolerance"))
        snprintf(why, len, "PASS, yet its message says elements are out of tolerance");
    else if (tol->kind == CTS_TOL_BOUND && !(v->worst_bound_units <= 1))
        snprintf(why, len, "PASS, yet its worst error is %.4g bound units, over the 1 its "
                 "policy %s allows", v->worst_bound_units, tol->name ? tol->name : "bound");
    else if (tol->kind == CTS_TOL_BOUND && v->el.n && over_one(v->el.hist[CTS_METRIC_BOUND]))
        snprintf(why, len, "PASS, yet its histogram holds %llu elements over 1 bound unit",
                 (unsigned long long)over_one(v->el.hist[CTS_METRIC_BOUND]));
    else if (tol->kind == CTS_TOL_ULP && !(v->worst_ulp <= tol->ulps))
        snprintf(why, len, "PASS, yet its worst error is %.4g ULP, over the %g its policy %s "
                 "allows", v->worst_ulp, tol->ulps, tol->name ? tol->name : "ulp");
    else
        return NULL;
    return why;
}

/* Why an UNDEFINED record contradicts itself or its case, or NULL: it judges nothing, and its
 * case must be one whose outcome the status model leaves undefined under the record's contract
 * and product (the case's, as loaded for the package's contract), so a FAIL cannot be relabelled
 * UNDEFINED. */
static const char *undefined_contradiction(const cts_result *r, const cts_case *c, char *why,
                                           size_t len)
{
    if (strcmp(r->v.check, "undefined") != 0 || r->v.nelems != 0 || r->v.el.n != 0) {
        snprintf(why, len, "UNDEFINED, yet it %s", strcmp(r->v.check, "undefined")
                 ? "names a check other than undefined" : "judged output elements");
        return why;
    }
    ref_status_query q = cts_status_query(c);
    ref_status st = ref_expected_status(&q);
    if (c->expect_status_model && st.undefined) return NULL;
    if (!c->expect_status_model)
        snprintf(why, len, "UNDEFINED, yet the suite gives the case its own expected status %d",
                 c->expect_status);
    else
        snprintf(why, len, "UNDEFINED, yet under %s on %s the status model expects status %d "
                 "(%.200s)", ref_spec_name(c->spec), ref_product_id(c->product), st.status,
                 st.reason);
    return why;
}

/* Why a record of a status that does not count against the verdict contradicts itself or its
 * case, or NULL. */
static const char *contradiction(const cts_result *r, const cts_case *c, char *why, size_t len)
{
    switch (r->v.status) {
    case CTS_PASS:
        return pass_contradiction(r, c, why, len);
    case CTS_WAIVED:
        if (c->waiver) return NULL;
        snprintf(why, len, "WAIVED, yet the suite gives the case no waiver");
        return why;
    case CTS_NOT_SUPPORTED:
        if (!strcmp(r->v.check, "setup") && r->v.nelems == 0 && r->v.el.n == 0) return NULL;
        snprintf(why, len, "NOT_SUPPORTED, yet it %s", strcmp(r->v.check, "setup")
                 ? "names a check other than setup" : "judged output elements");
        return why;
    case CTS_UNDEFINED:
        return undefined_contradiction(r, c, why, len);
    default:
        return NULL;
    }
}

int cts_check_records(const cts_loaded *l, const cts_result_list *res, const char *what,
                      FILE *out)
{
    const cts_case **sorted = malloc((l->nsel ? l->nsel : 1) * sizeof *sorted);
    if (!sorted) abort();
    memcpy(sorted, l->sel, l->nsel * sizeof *sorted);
    if (l->nsel) qsort(sorted, l->nsel, sizeof *sorted, by_id);
    int bad = 0;
    char why[400];
    for (size_t i = 0; i < res->count; i++) {
        const cts_result *r = &res->r[i];
        const cts_case **hit = l->nsel ? bsearch(r->v.case_id, sorted, l->nsel, sizeof *sorted,
                                                 id_vs_case) : NULL;
        if (!hit || !contradiction(r, *hit, why, sizeof why)) continue;
        if (bad++ < MAX_LINES)
            fprintf(out, "%s: case %s: %s (the record contradicts itself)\n", what,
                    r->v.case_id, why);
    }
    if (bad > MAX_LINES)
        fprintf(out, "%s: ... and %d more records that contradict themselves\n", what,
                bad - MAX_LINES);
    free(sorted);
    return bad;
}
