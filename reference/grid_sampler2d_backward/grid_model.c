/* The grid sampler's entry in the model table (common/models.c): what ref_case asks of an
 * operator, from the query alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid_internal.h"
#include "status_internal.h"

static void params_of(const ref_status_query *q, ref_grid_params *p)
{
    memset(p, 0, sizeof *p);
    const ref_tensor_desc *in = &q->t[REF_GRID_INPUT], *grid = &q->t[REF_GRID_GRID];
    p->n = in->dims[0];
    p->c = in->dims[1];
    p->h_in = in->dims[2];
    p->w_in = in->dims[3];
    p->h_out = grid->dims[1];
    p->w_out = grid->dims[2];
    p->interpolation = (ref_interp)ref_param_int(q, REF_GRID_INTERPOLATION_MODE);
    p->padding = (ref_padding)ref_param_int(q, REF_GRID_PADDING_MODE);
    p->align_corners = ref_param_bool(q, REF_GRID_ALIGN_CORNERS);
}

/* Whether the call runs on one of the vendor's AICore kernels whose border padding clamps an
 * infinite coordinate to the edge before its non-finite test (docs/contract.md "Non-finite grid
 * coordinates"): bilinear or nearest under border, on 910b/910_93 when not DOUBLE and C <= 2048
 * (the transposed kernel, every release), on 950 from 9.0 (arch35 SIMT; not DOUBLE from 9.1)
 * and in 8.5 as on 910b. ascend910 and the rest run the AICPU task, whose code is not public:
 * an infinite coordinate stays out of bounds there, as under the documents. */
static bool vendor_inf_to_edge(const ref_status_query *q, const ref_grid_params *p)
{
    if (ref_status_spec(q) == REF_SPEC_DOC || p->padding != REF_PAD_BORDER ||
        p->interpolation == REF_INTERP_BICUBIC)
        return false;
    const bool dbl = q->t[REF_GRID_INPUT].dtype == REF_DT_DOUBLE;
    switch (ref_product_family(q->product)) {
    case REF_FAMILY_A2A3:
        return !dbl && p->c <= 2048;
    case REF_FAMILY_950:
        if (q->spec == REF_SPEC_VENDOR_OLD) return !dbl && p->c <= 2048;
        return q->spec == REF_SPEC_VENDOR || !dbl;
    default:
        return false;
    }
}

/* Which bicubic kernel of release 9.1 or 9.2 computes the call (vendor readings): on 910b and
 * 910_93 the vector kernel when not DOUBLE and C <= 2048 (the transposed call, ops-cv op_api
 * CV:186-204,271@4d57ffe7); on 950 the arch35 SIMT kernel when not DOUBLE, but the vector one
 * (tiling key 21) for FLOAT without determinism when 32 <= C <= 2048 under border or
 * 128 <= C <= 2048 under reflection (CV:198-203 and op_host/grid_sampler2_d_grad_tiling.cpp:
 * 450-455,489-499@4d57ffe7, the same at a92906f3); the rest is the AICPU task, read as the
 * exact model (grid_vendor_bicubic.c says what each kernel does). */
static grid_bc_kernel vendor_bicubic_kernel(const ref_status_query *q, const ref_grid_params *p)
{
    ref_spec s = ref_status_spec(q);
    ref_dtype dt = q->t[REF_GRID_INPUT].dtype;
    if ((s != REF_SPEC_VENDOR_91 && s != REF_SPEC_VENDOR_92) ||
        p->interpolation != REF_INTERP_BICUBIC || dt == REF_DT_DOUBLE)
        return GRID_BC_EXACT;
    switch (ref_product_family(q->product)) {
    case REF_FAMILY_A2A3:
        return p->c <= 2048 ? GRID_BC_VECTOR : GRID_BC_EXACT;
    case REF_FAMILY_950: {
        int64_t min_c = p->padding == REF_PAD_BORDER ? 32
                        : p->padding == REF_PAD_REFLECTION ? 128 : INT64_MAX;
        bool vec = dt == REF_DT_FLOAT && !q->deterministic && p->c >= min_c && p->c <= 2048;
        return vec ? GRID_BC_VECTOR : GRID_BC_SIMT;
    }
    default:
        return GRID_BC_EXACT;
    }
}

/* The dtype in which 950's arch35 SIMT kernel sums input_grad (grid_simt_sums.c), or
 * REF_DT_UNDEFINED: FLOAT16 and BF16 on 950 from release 9.0, where every call of those dtypes
 * runs that kernel (the op_api's 950 route, CV:174-179,278-279@197f5fbc, CV:186-204,304@4d57ffe7;
 * K/arch35/grid_sampler2_d_grad_simt.h:69-102@197f5fbc, :76-115@4d57ffe7, and the deterministic
 * variant's _simt_det.h:88@197f5fbc, :100@4d57ffe7: an atomic add of the term rounded to T). */
static ref_dtype simt_sum_dtype(const ref_status_query *q)
{
    ref_spec s = ref_status_spec(q);
    ref_dtype dt = q->t[REF_GRID_INPUT].dtype;
    bool release = s == REF_SPEC_VENDOR || s == REF_SPEC_VENDOR_91 || s == REF_SPEC_VENDOR_92;
    bool narrow = dt == REF_DT_FLOAT16 || dt == REF_DT_BF16;
    return release && narrow && ref_product_family(q->product) == REF_FAMILY_950
               ? dt : REF_DT_UNDEFINED;
}

/* The grid with each infinite coordinate replaced by ±1, which border padding clamps to the
 * same edge with the same zero gradient factor. NULL: out of memory (errno). */
static double *grid_inf_to_edge(const double *grid, int64_t n)
{
    double *g = malloc((size_t)(n > 0 ? n : 1) * sizeof *g);
    if (!g) return NULL;
    for (int64_t i = 0; i < n; i++)
        g[i] = isinf(grid[i]) ? copysign(1.0, grid[i]) : grid[i];
    return g;
}

/* From 9.1 that kernel also rounds the unnormalised coordinate to the dtype and keeps it there
 * through the padding (static_cast<T>(coord_f), ops-cv
 * grid_sampler3_d_grad_simt_base.h:51-65,97-112@4d57ffe7; K/arch35/grid_sampler2_d_grad_simt.h:
 * 262-276@4d57ffe7), the bilinear weights a product in it (:128-135), and grid_grad's factor
 * static_cast<T>(size)/2 (simt_base.h:58,62). */
static bool simt_coord_in_dtype(const ref_status_query *q)
{
    ref_spec s = ref_status_spec(q);
    return simt_sum_dtype(q) != REF_DT_UNDEFINED &&
           (s == REF_SPEC_VENDOR_91 || s == REF_SPEC_VENDOR_92);
}

static ref_path path(const ref_status_query *q, ref_dtype dtype)
{
    ref_path p = ref_grid_path(dtype);
    if (simt_coord_in_dtype(q)) {
        const ref_prec *f = ref_dtype_prec(q->t[REF_GRID_INPUT].dtype);
        p.coord_u = f->unit_roundoff;
        p.coord_eta = f->eta;
        p.coord_max = f->max_finite;
    }
    return p;
}

/* The roundings grid_simt_sums adds from 9.1: bilinear's weight a product in the dtype (one
 * rounding of each input_grad term, η·|g| below its normal range), grid_grad's factor. */
static grid_simt_rounds simt_rounds(const ref_status_query *q, const ref_grid_params *p,
                                    const double *go)
{
    grid_simt_rounds r = {0, 0, 0};
    if (!simt_coord_in_dtype(q))
        return r;
    r.dgrid_rounds = p->interpolation == REF_INTERP_NEAREST ? 0 : 1;
    if (p->interpolation != REF_INTERP_BILINEAR)
        return r;
    r.term_rounds = 1;
    int64_t ng = p->n * p->c * p->h_out * p->w_out;
    for (int64_t i = 0; i < ng; i++)
        r.g_max = ref_fmax(r.g_max, fabs(go[i]));
    return r;
}

/* Output slot `slot`'s outputMask entry (a missing entry is false). */
static bool computed(const ref_status_query *q, int slot)
{
    const ref_param *mask = &q->p[REF_GRID_OUTPUT_MASK];
    int k = slot - REF_GRID_INPUT_GRAD;
    if (!mask->present || k < 0) return false;
    return mask->len > k && mask->values[k] != 0;
}

static int64_t numel(const ref_status_query *q, int slot)
{
    ref_grid_params p;
    params_of(q, &p);
    if (slot == REF_GRID_INPUT_GRAD) return ref_numel4((int64_t[4]){p.n, p.c, p.h_in, p.w_in});
    return ref_numel4((int64_t[4]){p.n, p.h_out, p.w_out, 2});
}

/* The reference/README.md "Memory" bound of the answers' working set (alternatives aside). */
static uint64_t work_bytes(const ref_status_query *q, const ref_case_answer *a, int64_t step)
{
    (void)a;
    int threads = omp_get_max_threads();
    ref_grid_params p;
    params_of(q, &p);
    if (p.c < 0 || p.h_in < 0 || p.w_in < 0 || p.h_out < 0 || p.w_out < 0) return 0; /* refused */
    uint64_t hw_in = (uint64_t)p.h_in * (uint64_t)p.w_in;
    uint64_t hw_out = (uint64_t)p.h_out * (uint64_t)p.w_out;
    uint64_t planes = hw_in ? (uint64_t)step / hw_in : 1, chunk;
    if (planes < 1) planes = 1;
    if (planes > (uint64_t)p.c && p.c > 0) planes = (uint64_t)p.c;
    /* the grid's copy of vendor_inf_to_edge, or the vendor bicubic kernels' marks */
    uint64_t edged = vendor_inf_to_edge(q, &p) ? 16 * hw_out * (uint64_t)(p.n > 0 ? p.n : 0) : 0;
    if (vendor_bicubic_kernel(q, &p) != GRID_BC_EXACT)
        edged += ref_grid_vendor_bicubic_work_bytes(&p, step);
    if (simt_sum_dtype(q) != REF_DT_UNDEFINED) /* the widened chunk */
        edged += grid_simt_sums_work_bytes(step);
    if (ref_status_spec(q) == REF_SPEC_DOC) /* the clamped variants' answers */
        edged += ref_grid_doc_work_bytes(&p);
    /* grid_grad: one batch's chunk, or all of them kept (the streams' one pass) */
    uint64_t dgrid = 2 * hw_out, all = dgrid * (uint64_t)(p.n > 0 ? p.n : 0);
    uint64_t gkept = all <= (uint64_t)REF_GRID_STASH_MAX && all > dgrid ? all : dgrid;
    if (p.interpolation == REF_INTERP_BICUBIC) /* one input_grad chunk */
        return edged + ref_grid_bicubic_work_bytes(&p, threads) +
               (planes * hw_in + gkept) * REF_CHUNK_ELEM_BYTES;
    /* input_grad: two chunks when a batch has several (one handed on while the next is
     * computed) */
    uint64_t xbufs = (uint64_t)p.c > planes ? 2 : 1;
    chunk = xbufs * planes * hw_in + gkept;
    uint64_t copies = (hw_out + hw_in) * (uint64_t)p.c * 8; /* channel-innermost, ≤ 16 MiB */
    if (copies > (16u << 20)) copies = 0;
    /* points, reach lists, dx terms (per element: 4 × 64 bytes a point, 4 indices) */
    uint64_t b = edged + copies + hw_out * (216 + 2 * 864 + 1 + 5 * 8 + 4 * (64 + 8)) +
                 hw_in * (8 + 8 + 4 + 4 * 6) + /* term and reach offsets, ambiguity tables */
                 (uint64_t)threads * hw_in * 16 + /* term counts and slots of the
                                                     * per-element sort */
                 xbufs * planes * hw_in + /* the input_grad chunks' fallback marks */
                 chunk * REF_CHUNK_ELEM_BYTES;
    return b + (b >= (4u << 20) ? (2u << 20) : 0); /* a work block of 4 MiB or more is rounded
                                                     * up to whole huge pages */
}

/* input_grad, then grid_grad (slot order, ref_grid_stream). */
static int stream(const ref_status_query *q, const ref_case_answer *a,
                  const double *const *in, bool documented, ref_options *opt, const ref_sink *s)
{
    (void)documented;
    ref_grid_params p;
    params_of(q, &p);
    const double *grid = in[REF_GRID_GRID];
    double *edged = NULL;
    int64_t ngrid = 2 * p.n * p.h_out * p.w_out;
    if (vendor_inf_to_edge(q, &p) && !(grid = edged = grid_inf_to_edge(grid, ngrid)))
        return -1;
    bool dx = a->computed[REF_GRID_INPUT_GRAD], dgrid = a->computed[REF_GRID_GRID_GRAD];
    ref_dtype sum_dt = simt_sum_dtype(q);
    grid_simt_sums Z;
    if (sum_dt != REF_DT_UNDEFINED) {
        grid_simt_rounds r = simt_rounds(q, &p, in[REF_GRID_GRAD_OUTPUT]);
        grid_simt_sums_init(&Z, sum_dt, &r, s);
        s = &Z.sink;
    }
    grid_bc_kernel bk = vendor_bicubic_kernel(q, &p);
    int rc;
    if (bk != GRID_BC_EXACT)
        rc = ref_grid_stream_vendor_bicubic(&p, bk, q->t[REF_GRID_INPUT].dtype,
                                            in[REF_GRID_GRAD_OUTPUT], in[REF_GRID_INPUT], grid,
                                            opt, dx, dgrid, s);
    else if (ref_status_spec(q) == REF_SPEC_DOC)
        rc = ref_grid_stream_doc(&p, in[REF_GRID_GRAD_OUTPUT], in[REF_GRID_INPUT], grid, opt,
                                 dx, dgrid, s);
    else
        rc = ref_grid_stream(&p, in[REF_GRID_GRAD_OUTPUT], in[REF_GRID_INPUT], grid, opt, dx,
                             dgrid, s);
    free(edged);
    if (sum_dt != REF_DT_UNDEFINED)
        grid_simt_sums_free(&Z);
    return rc;
}

const ref_model ref_model_grid_sampler2d_backward = {
    .status_doc = ref_status_grid_sampler2d_backward,
    .status_vendor = ref_status_vendor_grid_sampler2d_backward,
    .path = path,
    .computed = computed,
    .numel = numel,
    .work_bytes = work_bytes,
    .stream = stream,
};
