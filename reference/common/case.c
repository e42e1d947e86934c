/* ref_case: a case's plan (expected status, path, outputs, memory) and its answers streamed in
 * chunks, from the query alone. The operator parameters are read from the query's tensors and
 * arrays as the operator reads its arguments. */
#include <errno.h>
#include <string.h>

#include "ref_internal.h"

/* Axis value of a length-1-or-2 array: length 1 means both axes; absent or empty, `dflt`. */
static int64_t axis(const ref_int_array_desc *a, int i, int64_t dflt)
{
    if (!a->present || a->len == 0) return dflt;
    return a->len > i && i < REF_MAX_DIMS ? a->values[i] : a->values[0];
}

void ref_case_avgpool_params(const ref_status_query *q, ref_avgpool_params *p)
{
    memset(p, 0, sizeof *p);
    const ref_tensor_desc *self = &q->t[1], *go = &q->t[0];
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
    p->kh = axis(&q->kernel_size, 0, 1);
    p->kw = axis(&q->kernel_size, 1, 1);
    p->sh = axis(&q->stride, 0, p->kh); /* absent or empty stride means stride = kernel */
    p->sw = axis(&q->stride, 1, p->kw);
    p->ph = axis(&q->padding, 0, 0);
    p->pw = axis(&q->padding, 1, 0);
    p->ceil_mode = q->ceil_mode;
    p->count_include_pad = q->count_include_pad;
    p->divisor_override = q->divisor_override;
}

static void grid_params(const ref_status_query *q, ref_grid_params *p)
{
    memset(p, 0, sizeof *p);
    const ref_tensor_desc *in = &q->t[1], *grid = &q->t[2];
    p->n = in->dims[0];
    p->c = in->dims[1];
    p->h_in = in->dims[2];
    p->w_in = in->dims[3];
    p->h_out = grid->dims[1];
    p->w_out = grid->dims[2];
    p->interpolation = (ref_interp)q->interpolation_mode;
    p->padding = (ref_padding)q->padding_mode;
    p->align_corners = q->align_corners;
}

/* d[0]·…·d[3], or -1 when negative or past int64 (shapes of error cases). */
static int64_t product(const int64_t d[4])
{
    int64_t n = 1;
    for (int i = 0; i < 4; i++)
        if (d[i] < 0 || __builtin_mul_overflow(n, d[i], &n)) return -1;
    return n;
}

static bool is_avgpool(const ref_status_query *q) { return q->op == REF_OP_AVGPOOL2D_BACKWARD; }

/* Whether a successful call writes output slot `slot` (grid sampler: its outputMask entry; a
 * missing entry is false). */
static bool computed(const ref_status_query *q, int slot)
{
    if (is_avgpool(q)) return slot == 2;
    if (!q->output_mask_present || slot < 3) return false;
    return q->output_mask_len > slot - 3 && q->output_mask[slot - 3];
}

/* Bytes of one element in a chunk: its answer, flags, alternative index and count, interval
 * offsets and the list the alternatives are gathered in. */
#define CHUNK_ELEM_BYTES \
    (sizeof(ref_value) + 1 + sizeof(int64_t) + sizeof(int32_t) + 2 * sizeof(double) + 16)

/* The reference/README.md "Memory" bound of the answers' working set (alternatives aside). */
static uint64_t work_bytes(const ref_status_query *q, const ref_case_answer *a, int64_t step)
{
    int threads = omp_get_max_threads();
    if (is_avgpool(q)) {
        ref_avgpool_params p;
        ref_case_avgpool_params(q, &p);
        if (p.sh <= 0 || p.sw <= 0 || a->numel[2] < 0) return 0; /* refused: computes nothing */
        int64_t numel = a->numel[2] < step ? a->numel[2] : step;
        /* up to three chunk buffers: one handed on while the next ones are computed */
        uint64_t chunks = a->numel[2] > 2 * step ? 3 : a->numel[2] > step ? 2 : 1;
        /* windows covering an index of an axis: ceil(k/s) + 1 at most, and no more than it has */
        uint64_t ch = (uint64_t)(p.kh / p.sh) + 2, cw = (uint64_t)(p.kw / p.sw) + 2;
        if (ch > (uint64_t)p.oh + 1) ch = (uint64_t)p.oh + 1;
        if (cw > (uint64_t)p.ow + 1) cw = (uint64_t)p.ow + 1;
        /* window tables per axis, per-thread term scratch (windows covering an element) */
        /* + per row and column its shared divisor factor, per column its affine-group mark, */
        /* per chunk a byte per plane, a row's plan of lane groups (< 72 KiB) */
        return chunks * ((uint64_t)numel * (CHUNK_ELEM_BYTES + 1) + 2) +
               ((uint64_t)p.h * ch + (uint64_t)p.w * cw) * 24 + (uint64_t)p.h * 8 +
               (uint64_t)p.w * 9 + (uint64_t)threads * ch * cw * 24 + 72 * 1024;
    }
    ref_grid_params p;
    grid_params(q, &p);
    if (p.c < 0 || p.h_in < 0 || p.w_in < 0 || p.h_out < 0 || p.w_out < 0) return 0; /* refused */
    uint64_t hw_in = (uint64_t)p.h_in * (uint64_t)p.w_in;
    uint64_t hw_out = (uint64_t)p.h_out * (uint64_t)p.w_out;
    uint64_t planes = hw_in ? (uint64_t)step / hw_in : 1, chunk;
    if (planes < 1) planes = 1;
    if (planes > (uint64_t)p.c && p.c > 0) planes = (uint64_t)p.c;
    if (p.interpolation == REF_INTERP_BICUBIC) /* one input_grad chunk, one grid_grad batch */
        return ref_grid_bicubic_work_bytes(&p, threads) +
               (planes * hw_in + 2 * hw_out) * CHUNK_ELEM_BYTES;
    /* input_grad: two chunks when a batch has several (one handed on while the next is
     * computed); grid_grad: one batch's chunk, or all of them kept (ref_grid_stream's one pass) */
    uint64_t xbufs = (uint64_t)p.c > planes ? 2 : 1;
    uint64_t dgrid = 2 * hw_out, all = dgrid * (uint64_t)(p.n > 0 ? p.n : 0);
    chunk = xbufs * planes * hw_in +
            (all <= (uint64_t)REF_GRID_STASH_MAX && all > dgrid ? all : dgrid);
    uint64_t copies = (hw_out + hw_in) * (uint64_t)p.c * 8; /* channel-innermost, ≤ 16 MiB */
    if (copies > (16u << 20)) copies = 0;
    /* points, reach lists, dx terms (per element: 4 × 64 bytes a point, 4 indices) */
    uint64_t b = copies + hw_out * (216 + 2 * 864 + 1 + 5 * 8 + 4 * (64 + 8)) +
                 hw_in * (8 + 8 + 4 + 4 * 6) + /* term and reach offsets, ambiguity tables */
                 (uint64_t)threads * hw_in * 16 + /* term counts and slots of the
                                                     * per-element sort */
                 xbufs * planes * hw_in + /* the input_grad chunks' fallback marks */
                 chunk * CHUNK_ELEM_BYTES;
    return b + (b >= (4u << 20) ? (2u << 20) : 0); /* a work block of 4 MiB or more is rounded
                                                     * up to whole huge pages */
}

static ref_path case_path(const ref_status_query *q, ref_dtype dtype)
{
    if (!is_avgpool(q)) return ref_grid_path(dtype);
    ref_avgpool_params p;
    ref_case_avgpool_params(q, &p);
    if (q->spec != REF_SPEC_DOC) /* the vendor's lowering (docs/contract.md "Numerics") */
        return ref_avgpool_vendor_path(q->spec, q->product, &p, dtype, (int)q->cube_math_type);
    return ref_avgpool_path(q->product, &p, dtype, (int)q->cube_math_type);
}

static int stream(const ref_status_query *q, const ref_case_request *r, ref_case_answer *a,
                  int64_t step)
{
    const double *const *in = r->inputs;
    ref_sink s = {r->chunk, r->ctx, step};
    ref_options opt = {.threads = r->threads, .path = a->path};
    int64_t numel = 0;
    for (int slot = 0; slot < REF_MAX_SLOTS; slot++) numel += a->numel[slot];
    if (opt.threads == 0 && numel < REF_SERIAL_BELOW)
        opt.threads = 1; /* waking a thread team costs more than such an answer */
    int rc;
    if (is_avgpool(q)) {
        ref_avgpool_params p;
        ref_case_avgpool_params(q, &p);
        rc = r->documented ? ref_avgpool_documented_stream(&p, in[0], &a->path, &s)
                           : ref_avgpool_stream(&p, in[0], &opt, &s);
    } else {
        /* input_grad, then grid_grad (slot order, ref_grid_stream) */
        ref_grid_params p;
        grid_params(q, &p);
        bool dx = a->computed[3], dgrid = a->computed[4];
        rc = dx || dgrid ? ref_grid_stream(&p, in[0], in[1], in[2], &opt, dx, dgrid, &s) : 0;
    }
    a->fast_hits = opt.fast_hits;
    a->mpfr_fallbacks = opt.mpfr_fallbacks;
    return rc;
}

int ref_case(const ref_status_query *q, const ref_case_request *r, ref_case_answer *a)
{
    memset(a, 0, sizeof *a);
    a->status = ref_expected_status(q);
    a->path = case_path(q, r->dtype);
    a->judge = r->documented && is_avgpool(q) ? ref_documented_judge_path(&a->path) : a->path;
    ref_avgpool_params ap;
    ref_grid_params gp;
    ref_case_avgpool_params(q, &ap);
    grid_params(q, &gp);
    for (int slot = 0; slot < REF_MAX_SLOTS; slot++) {
        a->computed[slot] = computed(q, slot);
        if (!a->computed[slot]) continue;
        int64_t d[4] = {gp.n, gp.h_out, gp.w_out, 2};
        if (is_avgpool(q)) memcpy(d, (int64_t[4]){ap.n, ap.c, ap.h, ap.w}, sizeof d);
        else if (slot == 3) memcpy(d, (int64_t[4]){gp.n, gp.c, gp.h_in, gp.w_in}, sizeof d);
        a->numel[slot] = product(d);
    }
    int64_t step = r->chunk_elems > 0  ? r->chunk_elems
                   : is_avgpool(q) ? REF_AVGPOOL_CHUNK_ELEMS
                                   : REF_CHUNK_ELEMS;
    a->work_bytes = work_bytes(q, a, step);
    if (!r->inputs || !r->chunk) return 0;
    errno = 0;
    return stream(q, r, a, step);
}
