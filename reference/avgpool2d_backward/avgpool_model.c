/* Avg-pool's entry in the model table (common/models.c): what ref_case asks of an operator, from
 * the query alone. The parameters are read from the query's tensors and arrays as the operator
 * reads its arguments. */
#include <string.h>

#include "avgpool_internal.h"

/* Axis value of a length-1-or-2 array: length 1 means both axes; absent or empty, `dflt`. */
static int64_t axis(const ref_param *a, int i, int64_t dflt)
{
    if (!a->present || a->len == 0) return dflt;
    return a->len > i && i < REF_MAX_DIMS ? a->values[i] : a->values[0];
}

void ref_avgpool_params_of(const ref_status_query *q, ref_avgpool_params *p)
{
    memset(p, 0, sizeof *p);
    const ref_tensor_desc *self = &q->t[REF_AVGPOOL_SELF], *go = &q->t[REF_AVGPOOL_GRAD_OUTPUT];
    int r = self->rank;
    /* Ranks the operator refuses (error cases) have no geometry: it stays 0, never dims[-1]. */
    if (r >= 3 && r <= REF_MAX_DIMS) {
        p->n = r == 4 ? self->dims[0] : 1;
        p->c = self->dims[r - 3];
        p->h = self->dims[r - 2];
        p->w = self->dims[r - 1];
    }
    if (go->rank >= 2 && go->rank <= REF_MAX_DIMS) {
        p->oh = go->dims[go->rank - 2];
        p->ow = go->dims[go->rank - 1];
    }
    const ref_param *k = &q->p[REF_AVGPOOL_KERNEL_SIZE], *s = &q->p[REF_AVGPOOL_STRIDE];
    const ref_param *pad = &q->p[REF_AVGPOOL_PADDING];
    p->kh = axis(k, 0, 1);
    p->kw = axis(k, 1, 1);
    p->sh = axis(s, 0, p->kh); /* absent or empty stride means stride = kernel */
    p->sw = axis(s, 1, p->kw);
    p->ph = axis(pad, 0, 0);
    p->pw = axis(pad, 1, 0);
    p->ceil_mode = ref_param_bool(q, REF_AVGPOOL_CEIL_MODE);
    p->count_include_pad = ref_param_bool(q, REF_AVGPOOL_COUNT_INCLUDE_PAD);
    p->divisor_override = ref_param_int(q, REF_AVGPOOL_DIVISOR_OVERRIDE);
}

static ref_path path(const ref_status_query *q, ref_dtype dtype)
{
    ref_avgpool_params p;
    ref_avgpool_params_of(q, &p);
    int cube_math_type = (int)ref_param_int(q, REF_AVGPOOL_CUBE_MATH_TYPE);
    if (q->spec != REF_SPEC_DOC) /* the vendor's lowering (docs/contract.md "Numerics") */
        return ref_avgpool_vendor_path(q->spec, q->product, &p, dtype, cube_math_type);
    return ref_avgpool_path(q->product, &p, dtype, cube_math_type);
}

static bool computed(const ref_status_query *q, int slot)
{
    (void)q;
    return slot == REF_AVGPOOL_GRAD_INPUT;
}

static int64_t numel(const ref_status_query *q, int slot)
{
    (void)slot;
    ref_avgpool_params p;
    ref_avgpool_params_of(q, &p);
    return ref_numel4((int64_t[4]){p.n, p.c, p.h, p.w});
}

/* The reference/README.md "Memory" bound of the answers' working set (alternatives aside). */
static uint64_t work_bytes(const ref_status_query *q, const ref_case_answer *a, int64_t step)
{
    int threads = omp_get_max_threads();
    ref_avgpool_params p;
    ref_avgpool_params_of(q, &p);
    int64_t all = a->numel[REF_AVGPOOL_GRAD_INPUT];
    if (p.sh <= 0 || p.sw <= 0 || all < 0) return 0; /* refused: computes nothing */
    int64_t numel = all < step ? all : step;
    /* up to three chunk buffers: one handed on while the next ones are computed */
    uint64_t chunks = all > 2 * step ? 3 : all > step ? 2 : 1;
    /* windows covering an index of an axis: ceil(k/s) + 1 at most, and no more than it has */
    uint64_t ch = (uint64_t)(p.kh / p.sh) + 2, cw = (uint64_t)(p.kw / p.sw) + 2;
    if (ch > (uint64_t)p.oh + 1) ch = (uint64_t)p.oh + 1;
    if (cw > (uint64_t)p.ow + 1) cw = (uint64_t)p.ow + 1;
    /* window tables per axis, per-thread term scratch (windows covering an element) */
    /* + per row and column its shared divisor factor, per column its affine-group mark, */
    /* per chunk a byte per plane, a row's plan of lane groups (< 72 KiB) */
    return chunks * ((uint64_t)numel * (REF_CHUNK_ELEM_BYTES + 1) + 2) +
           ((uint64_t)p.h * ch + (uint64_t)p.w * cw) * 24 + (uint64_t)p.h * 8 +
           (uint64_t)p.w * 9 + (uint64_t)threads * ch * cw * 24 + 72 * 1024;
}

static int stream(const ref_status_query *q, const ref_case_answer *a,
                  const double *const *in, bool documented, ref_options *opt, const ref_sink *s)
{
    ref_avgpool_params p;
    ref_avgpool_params_of(q, &p);
    const double *go = in[REF_AVGPOOL_GRAD_OUTPUT];
    return documented ? ref_avgpool_documented_stream(&p, go, &a->path, s)
                      : ref_avgpool_stream(&p, go, opt, s);
}

const ref_model ref_model_avgpool2d_backward = {
    .status_doc = ref_status_avgpool2d_backward,
    .status_vendor = ref_status_vendor_avgpool2d_backward,
    .path = path,
    .documented_judge = ref_documented_judge_path,
    .computed = computed,
    .numel = numel,
    .chunk_elems = REF_AVGPOOL_CHUNK_ELEMS,
    .work_bytes = work_bytes,
    .stream = stream,
};
