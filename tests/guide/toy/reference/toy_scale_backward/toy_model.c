/* The toy's entry in the model table: status (one reading for every contract), path, outputs
 * and the answers gradInput = scale · gradOutput, exact in double for a power-of-two scale. */
#include <math.h>

#include "ref_internal.h"
#include "reference_toy_scale_backward.h"
#include "status_internal.h"

static ref_status status(const ref_status_query *q)
{
    const ref_tensor_desc *go = &q->t[REF_TOY_GRAD_OUTPUT], *gi = &q->t[REF_TOY_GRAD_INPUT];
    if (!go->present || !gi->present)
        return ref_status_make(REF_STATUS_NULLPTR, false, "%s is a null pointer",
                               go->present ? "gradInput" : "gradOutput");
    bool dt = go->dtype == REF_DT_FLOAT || go->dtype == REF_DT_FLOAT16 || go->dtype == REF_DT_BF16;
    if (!dt || go->dtype != gi->dtype)
        return ref_status_make(REF_STATUS_INVALID, false, "dtypes not one of FLOAT, FLOAT16, BF16");
    if (!ref_status_same_shape(go, gi) || ref_status_negative_axis(go) >= 0)
        return ref_status_make(REF_STATUS_INVALID, false, "gradInput's shape is not gradOutput's");
    double s = ref_param_real(q, REF_TOY_SCALE);
    int e;
    if (!isfinite(s) || frexp(s, &e) != 0.5 || e - 1 < -8 || e - 1 > 8)
        return ref_status_make(REF_STATUS_INVALID, false, "scale is not a power of two in "
                               "[2^-8, 2^8]");
    bool empty = ref_status_zero_axis(go) >= 0;
    return ref_status_make(REF_STATUS_SUCCESS, !empty, "valid");
}

static ref_path path(const ref_status_query *q, ref_dtype dtype)
{
    (void)q;
    (void)dtype;
    return (ref_path){.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT, .name = "vector-fp32"};
}

static bool computed(const ref_status_query *q, int slot)
{
    (void)q;
    return slot == REF_TOY_GRAD_INPUT;
}

static int64_t numel(const ref_status_query *q, int slot)
{
    const ref_tensor_desc *t = &q->t[slot];
    int64_t n = 1;
    for (int i = 0; i < t->rank && i < REF_MAX_DIMS; i++)
        if (t->dims[i] < 0 || __builtin_mul_overflow(n, t->dims[i], &n)) return -1;
    return n;
}

static uint64_t work_bytes(const ref_status_query *q, const ref_case_answer *a, int64_t step)
{
    (void)q;
    int64_t n = a->numel[REF_TOY_GRAD_INPUT] < step ? a->numel[REF_TOY_GRAD_INPUT] : step;
    return n > 0 ? (uint64_t)n * REF_CHUNK_ELEM_BYTES : 0;
}

/* One product, exact: hi is the value, lo 0, one term of one rounding. */
static int stream(const ref_status_query *q, const ref_case_answer *a, const double *const *in,
                  bool documented, ref_options *opt, const ref_sink *s)
{
    (void)documented;
    (void)opt;
    double scale = ref_param_real(q, REF_TOY_SCALE);
    int64_t n = a->numel[REF_TOY_GRAD_INPUT];
    ref_chunkbuf b;
    if (n <= 0) return 0;
    if (ref_chunkbuf_init(&b, s->elems) != 0) return -1;
    int rc = 0;
    for (int64_t first = 0; first < n && rc == 0; first += b.cap) {
        int64_t m = n - first < b.cap ? n - first : b.cap;
        ref_chunkbuf_start(&b, m);
        for (int64_t k = 0; k < m; k++) {
            double x = in[REF_TOY_GRAD_OUTPUT][first + k] * scale;
            b.o.v[k] = (ref_value){.hi = x, .sum_abs = fabs(x), .nterms = 1, .nops = 1};
            if (!isfinite(x)) b.o.flags[k] = REF_FLAG_NONFINITE;
        }
        rc = ref_emit(s, REF_TOY_GRAD_INPUT, first, &b);
    }
    ref_chunkbuf_free(&b);
    return rc;
}

const ref_model ref_model_toy_scale_backward = {
    .status_doc = status,
    .status_vendor = status,
    .path = path,
    .computed = computed,
    .numel = numel,
    .work_bytes = work_bytes,
    .stream = stream,
};
