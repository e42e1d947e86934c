/* What the bicubic kernels of the vendor's releases 9.1 and 9.2 do with coordinates the exact
 * model (grid_bicubic.c) reads otherwise: non-finite ones, and finite ones past the int32 range
 * (docs/contract.md "Non-finite grid coordinates in the vendor's kernels"). K = ops-cv
 * image/grid_sampler2_d_grad/op_kernel/ at 4d57ffe7 (v9.1.0; a92906f3, v9.2.0-beta.1, has the
 * same code reformatted), B = ops-cv image/grid_sampler3_d_grad/op_kernel/arch35/
 * grid_sampler3_d_grad_simt_base.h at 4d57ffe7.
 *
 * Vector kernel (K/grid_sampler2_d_grad_bicubic.h; 910b, 910_93, and 950 where FLOAT is routed
 * to it). Under zeros and border the FP32 unnormalised coordinate c becomes -100 when it is
 * NaN, above INT_MAX - 1 as FP32 (2^31) or below INT_MIN (:530-545). Under border the -100
 * puts every tap on index 0 with weights summing to 1 (the grid value -7 does the same here);
 * under zeros it stays out, as here. A coordinate within the device's error of 2^31 goes either
 * way (2^31 itself is kept and overflows the int32 floor cast, :667): its batch's input_grad
 * and its grid_grad are unjudged. Under reflection nothing is replaced: the taps come from the
 * hardware's float-to-int32 floor of a value it cannot hold (:667-670), which neither the code
 * nor the documents define, and the reflection sends them into the input wherever that leads
 * (:852-872; every tap passes the test at :872). Such a point leaves its batch's input_grad
 * unjudged; its grid_grad is NaN for a NaN coordinate (t = NaN - a finite floor: every
 * coefficient NaN, :675, :907-931) and unjudged otherwise.
 *
 * SIMT kernel (K/arch35/grid_sampler2_d_grad_simt.h:183-236 and _simt_det.h:261-324; 950):
 * the coordinate is only unnormalised (B:50-65); a non-finite one makes t = x - floorf(x) NaN
 * and every coefficient NaN. grid_grad sums val·w'·w·g over all 16 taps, val = 0 for a tap out
 * of bounds (B:237-269), so it is NaN under every padding whenever a channel exists. A NaN tap
 * passes every padding's bound and SafeDowngradeToIntRange (B:116-122) sends it to -100: no
 * input_grad. Under border a ±inf tap clamps to the edge (B:281-283) and adds NaN there, at the
 * rows (columns) the other coordinate's taps reach; under zeros and reflection it is out
 * (fmodf(inf) is NaN). ±inf on an axis of size 1 with align_corners unnormalises to NaN (·0).
 * A finite coordinate whose unnormalisation overflows FP32 (or, for FLOAT16, its rounding to the
 * dtype, B:64, passes 65504) is infinite there: its batch's input_grad and grid_grad are
 * unjudged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid_internal.h"

enum { PT_DGRID_NAN = 1, PT_DGRID_UNJ = 2, PT_DX_UNJ = 4, PT_DX_EDGE = 8 };
enum { AX_FIN, AX_NAN, AX_INF, AX_WILD };

typedef struct {
    const ref_grid_params *p;
    grid_bc_kernel k;
    ref_dtype dtype;
    const double *grid;
    uint8_t *pt;        /* per point: PT_* */
    uint8_t *batch;     /* per batch item: the PT_DX_* of its points */
    uint8_t *map;       /* one batch item's input_grad marks (MAP_*) */
    int64_t map_n;      /* the batch item map holds, -1 none */
    grid_marked_sink out;
} vbc;

/* The exact unnormalised coordinate (double rounding: classification only). */
static double unnorm(double x, int64_t size, bool align)
{
    return align ? (x + 1) / 2 * (double)(size - 1) : ((x + 1) * (double)size - 1) / 2;
}

/* A bound of |c' - c| for the device's c' (FP32 arithmetic; the SIMT kernel then rounds c to
 * the dtype). */
static double coord_err(double x, double c, int64_t size, ref_dtype dt, bool simt)
{
    double u_t = !simt ? 0 : dt == REF_DT_FLOAT16 ? 0x1p-11 : dt == REF_DT_BF16 ? 0x1p-8 : 0;
    return (2 * 0x1p-24 * ((fabs(x) + 1) * (double)size + 1) + u_t * fabs(c)) * (1 + 0x1p-40);
}

/* Whether the SIMT kernel's FP32 unnormalisation (or its rounding to the dtype) may overflow. */
static bool simt_overflows(double c, double d, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT16)
        return fabs(c) + d >= 65504;
    double lim = dt == REF_DT_BF16 ? 0x1.fcp127 : 0x1.fffffp127 * (1 - 0x1p-20);
    return 2 * (fabs(c) + d) + 2 >= lim;
}

/* One axis of the grid value x on an input axis of `size`, as the kernel sees it. */
static int axis_class(const vbc *V, double x, int64_t size)
{
    const ref_grid_params *p = V->p;
    bool simt = V->k == GRID_BC_SIMT;
    if (isnan(x) || (isinf(x) && p->align_corners && size == 1))
        return AX_NAN;
    if (isinf(x))
        return AX_INF;
    double c = unnorm(x, size, p->align_corners), d = coord_err(x, c, size, V->dtype, simt);
    if (simt)
        return simt_overflows(c, d, V->dtype) ? AX_WILD : AX_FIN;
    if (p->padding == REF_PAD_REFLECTION)
        return fabs(c) + d >= 0x1p31 ? AX_WILD : AX_FIN;
    if (p->padding == REF_PAD_BORDER && c - d > 0x1p31)
        return AX_INF; /* to -100 as +inf is */
    return p->padding == REF_PAD_BORDER && c + d >= 0x1p31 ? AX_WILD : AX_FIN;
}

/* Point flags from the two axes' classes (vector kernel: border's -100 is the grid's -7). */
static uint8_t point_flags(const vbc *V, int cx, int cy)
{
    bool nan = cx == AX_NAN || cy == AX_NAN, wild = cx == AX_WILD || cy == AX_WILD;
    bool inf = cx == AX_INF || cy == AX_INF, chan = V->p->c > 0;
    ref_padding pad = V->p->padding;
    if (V->k == GRID_BC_VECTOR) {
        if (pad == REF_PAD_REFLECTION && (nan || inf || wild))
            return PT_DX_UNJ | (nan && chan ? PT_DGRID_NAN : PT_DGRID_UNJ);
        return wild ? PT_DX_UNJ | PT_DGRID_UNJ : 0;
    }
    if (nan)
        return chan ? PT_DGRID_NAN : 0;
    if (wild)
        return PT_DX_UNJ | PT_DGRID_UNJ;
    if (inf)
        return (chan ? PT_DGRID_NAN : 0) | (pad == REF_PAD_BORDER ? PT_DX_EDGE : 0);
    return 0;
}

/* Classifies every point; the vector kernel's border -100 into g (a copy of the grid). */
static void classify(vbc *V, double *g)
{
    const ref_grid_params *p = V->p;
    int64_t hw_out = p->h_out * p->w_out;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t pix = 0; pix < hw_out; pix++) {
            int64_t q = n * hw_out + pix;
            int cx = axis_class(V, V->grid[2 * q], p->w_in);
            int cy = axis_class(V, V->grid[2 * q + 1], p->h_in);
            V->pt[q] = point_flags(V, cx, cy);
            V->batch[n] |= V->pt[q] & (PT_DX_UNJ | PT_DX_EDGE);
            bool low = V->k == GRID_BC_VECTOR && p->padding == REF_PAD_BORDER;
            if (low && (cx == AX_NAN || cx == AX_INF))
                g[2 * q] = -7;
            if (low && (cy == AX_NAN || cy == AX_INF))
                g[2 * q + 1] = -7;
        }
}

static int64_t clampi(int64_t i, int64_t size)
{
    return i < 0 ? 0 : i >= size ? size - 1 : i;
}

/* The border taps one axis of a SIMT point reaches: [*lo, *hi] on some device, [*slo, *shi]
 * on every one (empty when *slo > *shi). An infinite axis: its edge. */
static void axis_taps(const vbc *V, double x, int64_t size, int64_t r[4])
{
    if (isinf(x)) {
        r[0] = r[1] = r[2] = r[3] = x > 0 ? size - 1 : 0;
        return;
    }
    double c = unnorm(x, size, V->p->align_corners), d = coord_err(x, c, size, V->dtype, true);
    double f_lo = floor(c - d), f_hi = floor(c + d), big = 4.0 * (double)size + 8;
    f_lo = fmax(fmin(f_lo, big), -big); /* every tap past the edge clamps alike */
    f_hi = fmax(fmin(f_hi, big), -big);
    r[0] = clampi((int64_t)f_lo - 1, size);
    r[1] = clampi((int64_t)f_hi + 2, size);
    r[2] = clampi((int64_t)f_hi - 1, size);
    r[3] = (int64_t)f_lo + 2 < (int64_t)f_hi - 1 ? -1 : clampi((int64_t)f_lo + 2, size);
}

/* Batch item n's input_grad marks: NaN where a SIMT border point's infinite axis adds it on
 * every device, unjudged where only some floor of its other axis reaches. */
static void build_map(vbc *V, int64_t n)
{
    const ref_grid_params *p = V->p;
    int64_t hw_out = p->h_out * p->w_out;
    memset(V->map, 0, (size_t)(p->h_in * p->w_in));
    V->map_n = n;
    for (int64_t pix = 0; pix < hw_out; pix++) {
        int64_t q = n * hw_out + pix;
        if (!(V->pt[q] & PT_DX_EDGE))
            continue;
        int64_t rx[4], ry[4];
        axis_taps(V, V->grid[2 * q], p->w_in, rx);
        axis_taps(V, V->grid[2 * q + 1], p->h_in, ry);
        for (int64_t yi = ry[0]; yi <= ry[1]; yi++)
            for (int64_t xi = rx[0]; xi <= rx[1]; xi++) {
                bool sure = yi >= ry[2] && yi <= ry[3] && xi >= rx[2] && xi <= rx[3];
                uint8_t *m = &V->map[yi * p->w_in + xi];
                *m = sure || *m == GRID_MARK_NAN ? GRID_MARK_NAN : GRID_MARK_UNJUDGED;
            }
    }
}

/* The mark of element k of a chunk of output `slot` starting at `first`. */
static uint8_t element_mark(vbc *V, int slot, int64_t e)
{
    const ref_grid_params *p = V->p;
    if (slot == REF_GRID_GRID_GRAD) {
        uint8_t f = V->pt[e / 2];
        return f & PT_DGRID_NAN ? GRID_MARK_NAN : f & PT_DGRID_UNJ ? GRID_MARK_UNJUDGED : 0;
    }
    int64_t hw_in = p->h_in * p->w_in, n = e / (p->c * hw_in);
    if (V->batch[n] & PT_DX_UNJ)
        return GRID_MARK_UNJUDGED;
    if (!(V->batch[n] & PT_DX_EDGE))
        return 0;
    if (V->map_n != n)
        build_map(V, n);
    return V->map[e % hw_in];
}

int grid_emit_marked(grid_marked_sink *m, const ref_chunk *ch, const uint8_t *marks)
{
    const ref_output *c = ch->out;
    int64_t n = c->numel;
    bool any = false;
    for (int64_t k = 0; k < n && !any; k++)
        any = marks[k] != 0;
    if (!any)
        return m->down->fn(m->down->ctx, ch);
    if (m->live && m->buf.cap < n) {
        ref_chunkbuf_free(&m->buf);
        m->live = false;
    }
    if (!m->live && ref_chunkbuf_init(&m->buf, n) != 0)
        return -1;
    m->live = true;
    ref_chunkbuf_start(&m->buf, n);
    ref_output *b = &m->buf.o;
    double *iv = c->ival ? ref_chunkbuf_ival(&m->buf) : NULL;
    ref_altlist *lists = calloc((size_t)(n > 0 ? n : 1), sizeof *lists);
    int rc = (c->ival && !iv) || !lists ? -1 : 0;
    for (int64_t k = 0; k < n && !rc; k++) {
        b->v[k] = c->v[k];
        b->flags[k] = c->flags[k] & (uint8_t)~REF_FLAG_AMBIGUOUS;
        if (iv) {
            iv[2 * k] = c->ival[2 * k];
            iv[2 * k + 1] = c->ival[2 * k + 1];
        }
        if (marks[k] == GRID_MARK_NAN) { /* NaN plus anything: nothing else of it counts */
            b->v[k] = (ref_value){.hi = NAN};
            b->flags[k] = REF_FLAG_NONFINITE;
        } else if (marks[k] == GRID_MARK_UNJUDGED) {
            b->flags[k] |= REF_FLAG_UNCHECKABLE;
        } else if ((c->flags[k] & REF_FLAG_AMBIGUOUS) && c->alt_first[k] >= 0) {
            for (int32_t i = 0; i < c->alt_count[k] && !rc; i++)
                rc = ref_altlist_push(&lists[k], &c->alts[c->alt_first[k] + i]);
        }
    }
    if (!lists || ref_output_set_alts(b, lists) != 0 || rc) /* frees the lists */
        return -1;
    ref_chunk out = {ch->slot, ch->first, b};
    return m->down->fn(m->down->ctx, &out);
}

void grid_marked_sink_free(grid_marked_sink *m)
{
    if (m->live)
        ref_chunkbuf_free(&m->buf);
    m->live = false;
}

static int filter_chunk(void *ctx, const ref_chunk *ch)
{
    vbc *V = ctx;
    int64_t n = ch->out->numel;
    uint8_t *marks = malloc((size_t)(n > 0 ? n : 1));
    if (!marks) return -1;
    for (int64_t k = 0; k < n; k++)
        marks[k] = element_mark(V, ch->slot, ch->first + k);
    int rc = grid_emit_marked(&V->out, ch, marks);
    free(marks);
    return rc;
}

int ref_grid_stream_vendor_bicubic(const ref_grid_params *p, grid_bc_kernel k, ref_dtype dtype,
                                   const double *go, const double *in, const double *grid,
                                   ref_options *opt, bool dx, bool dgrid, const ref_sink *s)
{
    int64_t npt = p->n * p->h_out * p->w_out;
    if (k == GRID_BC_EXACT || npt <= 0)
        return ref_grid_stream(p, go, in, grid, opt, dx, dgrid, s);
    vbc V = {.p = p, .k = k, .dtype = dtype, .grid = grid, .map_n = -1, .out = {.down = s}};
    double *g = malloc((size_t)npt * 2 * sizeof *g);
    V.pt = malloc((size_t)npt);
    V.batch = calloc((size_t)p->n, 1);
    V.map = malloc((size_t)(p->h_in * p->w_in > 0 ? p->h_in * p->w_in : 1));
    int rc = -1;
    if (g && V.pt && V.batch && V.map) {
        memcpy(g, grid, (size_t)npt * 2 * sizeof *g);
        classify(&V, g);
        ref_sink f = {filter_chunk, &V, s->elems};
        rc = ref_grid_stream(p, go, in, g, opt, dx, dgrid, &f);
    }
    grid_marked_sink_free(&V.out);
    free(g);
    free(V.pt);
    free(V.batch);
    free(V.map);
    return rc;
}

uint64_t ref_grid_vendor_bicubic_work_bytes(const ref_grid_params *p, int64_t chunk)
{
    uint64_t npt = (uint64_t)(p->n > 0 ? p->n : 0) * (uint64_t)p->h_out * (uint64_t)p->w_out;
    uint64_t hw_in = (uint64_t)p->h_in * (uint64_t)p->w_in;
    /* the grid's copy, point marks, a batch item's map, a modified chunk's copy */
    return npt * 17 + (uint64_t)(p->n > 0 ? p->n : 0) + hw_in +
           (uint64_t)(chunk > 0 ? chunk : 0) * (REF_CHUNK_ELEM_BYTES + 1 + sizeof(ref_altlist));
}
