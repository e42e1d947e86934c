/* View classes of the coverage model (coverage.h cov_case_views): per tensor, a padded stride
 * at each dimension, a storage offset, stride 0, a permuted layout. A kernel that walks a view
 * as if it were dense goes wrong in exactly one of these ways, so each is a class of its own. */
#include <stdio.h>

#include "coverage.h"
#include "run/run.h"

static int64_t mag(int64_t v) { return v < 0 ? -v : v; }

/* The strides a case gives tensor t (contiguous when it gives none). */
static void strides_of(const cts_tensor *t, int64_t s[CTS_MAX_DIMS])
{
    int64_t step = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        s[i] = t->has_strides ? t->strides[i] : step;
        step *= t->dims[i] > 1 ? t->dims[i] : 1;
    }
}

/* Dim i's stride steps over more than the dims with smaller strides span. */
static bool padded_at(const cts_tensor *t, const int64_t s[], int i)
{
    int64_t extent = 1;
    for (int j = 0; j < t->rank; j++)
        if (j != i && t->dims[j] > 1 && mag(s[j]) < mag(s[i]) && mag(s[j]) * t->dims[j] > extent)
            extent = mag(s[j]) * t->dims[j];
    return mag(s[i]) > extent;
}

/* Dim p's stride is the smallest (largest when outermost) of the dims longer than 1. */
static bool permuted_at(const cts_tensor *t, const int64_t s[], int p, bool outermost)
{
    if (p < 0 || t->dims[p] <= 1) return false;
    int others = 0;
    for (int j = 0; j < t->rank; j++) {
        if (j == p || t->dims[j] <= 1) continue;
        others++;
        if (outermost ? mag(s[j]) >= mag(s[p]) : mag(s[j]) <= mag(s[p])) return false;
    }
    return others > 0;
}

static uint32_t classes_of(const cts_tensor *t, const cov_view_layout *v)
{
    if (t->null || t->rank <= 0 || t->rank > 4) return 0;
    int64_t s[CTS_MAX_DIMS];
    strides_of(t, s);
    int first = 4 - t->rank; /* name index of dim 0 */
    uint32_t b = t->offset > 0 ? cov_bit(COV_VC_OFFSET) : 0;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] <= 1) continue;
        if (s[i] == 0) b |= cov_bit(COV_VC_BROADCAST);
        else if (padded_at(t, s, i)) b |= cov_bit(COV_VC_PAD0 + first + i);
    }
    if (permuted_at(t, s, v->permuted - first, v->outermost)) b |= cov_bit(COV_VC_PERMUTED);
    return b;
}

void cov_case_views(const cts_case *c, const cov_model *m, uint32_t classes[CTS_MAX_TENSORS])
{
    for (int i = 0; i < CTS_MAX_TENSORS; i++) classes[i] = 0;
    ref_status_query q = cts_status_query(c);
    ref_status st = ref_expected_status(&q);
    if (!m->views || st.status != 0 || !st.runs) return;
    ref_case_answer plan;
    (void)ref_case(&q, &(ref_case_request){.dtype = c->dtype}, &plan);
    for (int i = 0; i < c->ntensors && i < CTS_MAX_TENSORS; i++)
        if (!c->t[i].is_output || plan.computed[i]) classes[i] = classes_of(&c->t[i], &m->views[i]);
}

const char *cov_view_class_name(const cov_model *m, int t, int k, char *buf, size_t len)
{
    const cov_view_layout *v = &m->views[t];
    if (k < COV_VC_OFFSET) snprintf(buf, len, "pad-%s", v->dims[k - COV_VC_PAD0]);
    else snprintf(buf, len, "%s", k == COV_VC_OFFSET ? "offset" : k == COV_VC_BROADCAST ?
                  "broadcast" : v->permuted_name);
    return buf;
}

const char *cov_view_impossible(const cts_op_driver *op, int t, int k)
{
    if (k == COV_VC_BROADCAST && op->tensors[t].is_output)
        return "an output read with stride 0 would receive several results in one element: "
               "only inputs may broadcast";
    return NULL;
}
