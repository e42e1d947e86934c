/* Decoding the parts both operators share: product, spec, flags, dtypes, formats, views. */
#include <string.h>

#include "fuzz_call.h"
#include "suite_case.h"

/* Most picks land on what a valid call uses; the rest on what the operators must reject. */
static const ref_dtype DTYPES[] = {
    REF_DT_FLOAT, REF_DT_FLOAT16, REF_DT_BF16, REF_DT_DOUBLE, REF_DT_FLOAT, REF_DT_FLOAT16,
    REF_DT_INT32, REF_DT_UNDEFINED, REF_DT_INT8, REF_DT_INT64, REF_DT_BOOL, REF_DT_COMPLEX64,
    REF_DT_UINT8, REF_DT_INT16, REF_DT_UINT64, REF_DT_STRING,
};
static const ref_format FORMATS[] = {
    REF_FMT_NCHW, REF_FMT_NCL, REF_FMT_ND, REF_FMT_NHWC, REF_FMT_NC1HWC0, REF_FMT_FRACTAL_Z,
    REF_FMT_UNDEFINED, (ref_format)29,
};
static const ref_spec SPECS[] = {REF_SPEC_DOC, REF_SPEC_VENDOR, REF_SPEC_VENDOR_OLD,
                                 REF_SPEC_VENDOR_91, REF_SPEC_VENDOR_92};

void fuzz_decode_header(fdp *p, fuzz_call *fc, const cts_op_driver *op)
{
    memset(fc, 0, sizeof *fc);
    cts_case *c = &fc->c;
    cts_case_init_op(c, op);
    c->product = (ref_product)fdp_pick(p, REF_PRODUCT_COUNT);
    c->spec = SPECS[fdp_pick(p, sizeof SPECS / sizeof SPECS[0])];
    c->deterministic = fdp_bool(p);
    fc->workspace_size_null = fdp_rare(p);
    fc->executor_null = fdp_rare(p);
    fc->data_seed = (uint32_t)fdp_int(p, 0, UINT32_MAX);
    fc->values = (fuzz_values)fdp_pick(p, FUZZ_VALUES_COUNT);
    c->dtype = DTYPES[fdp_pick(p, (int)(sizeof DTYPES / sizeof DTYPES[0]))];
}

int64_t fuzz_numel(int rank, const int64_t *dims)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] <= 0) return 0;
        n = n > INT64_MAX / dims[i] ? INT64_MAX : n * dims[i];
    }
    return n;
}

void fuzz_shrink(int rank, int64_t *dims, int64_t max, int keep)
{
    while (fuzz_numel(rank, dims) > max) {
        int big = -1;
        for (int i = 0; i < rank; i++)
            if (i != keep && dims[i] > 1 && (big < 0 || dims[i] > dims[big])) big = i;
        dims[big < 0 ? keep : big] /= 2;
    }
}

void fuzz_decode_dims(fdp *p, int rank, int64_t lo, int64_t hi, int64_t *dims)
{
    for (int i = 0; i < rank; i++) dims[i] = fdp_int(p, lo, hi);
}

/* Strides of a view that keeps every element inside storage [0, storage). Inputs may overlap
 * (stride 0) and run backwards (negative strides, offset compensating); outputs never overlap,
 * so every element the device writes has one defined value. */
static void decode_view(fdp *p, cts_tensor *t)
{
    int mode = fdp_pick(p, 8);
    if (mode < 5 || t->rank == 0 || fuzz_numel(t->rank, t->dims) == 0) return;
    t->offset = fdp_int(p, 0, 7);
    if (mode == 5) return;
    t->has_strides = true;
    if (mode == 6 && !t->is_output) {
        for (int i = 0; i < t->rank; i++) {
            t->strides[i] = fdp_int(p, -2, 6);
            if (t->strides[i] < 0) t->offset += -t->strides[i] * (t->dims[i] - 1);
        }
        return;
    }
    /* Non-overlapping: contiguous over a permutation of the axes (mode 7) or with gaps. */
    int order[CTS_MAX_DIMS];
    for (int i = 0; i < t->rank; i++) order[i] = i;
    if (mode == 7)
        for (int i = t->rank - 1; i > 0; i--) {
            int j = fdp_pick(p, i + 1), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        t->strides[order[i]] = s;
        s *= t->dims[order[i]] + (mode == 6 ? fdp_int(p, 0, 2) : 0);
    }
}

void fuzz_decode_tensor(fdp *p, fuzz_call *fc, int slot, ref_format natural)
{
    cts_tensor *t = &fc->c.t[slot];
    t->null = fdp_rare(p);
    t->dtype = fc->c.dtype;
    if (fdp_rare(p)) t->dtype = DTYPES[fdp_pick(p, (int)(sizeof DTYPES / sizeof DTYPES[0]))];
    t->format = natural;
    if (fdp_rare(p)) t->format = FORMATS[fdp_pick(p, (int)(sizeof FORMATS / sizeof FORMATS[0]))];
    decode_view(p, t);
}
