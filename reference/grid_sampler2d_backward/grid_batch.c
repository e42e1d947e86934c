/* A batch's inputs as the gathers read them (channel-innermost copies, scanned for the fast
 * paths' conditions), its points' coordinate stage, and the call's work block. */
#include "grid_values.h"

/* Batch n's view: the tensors, or with buf its channel-innermost copies (gradOutput's, and
 * input's with `in`: (hw_out + hw_in)·C doubles, else hw_out·C). */
batch_view grid_batch_view_of(const gctx *G, int64_t n, double *buf, bool in)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in, C = p->c;
    batch_view v = {G->go + n * C * hw_out, G->in + n * C * hw_in, hw_out, 1, hw_in, 1, false, 0, 0,
                    false, NULL};
    if (buf) {
        v.go = buf;
        v.go_cs = 1;
        v.go_is = C;
    }
    if (buf && in) {
        v.in = buf + hw_out * C;
        v.in_cs = 1;
        v.in_is = C;
    }
    return v;
}

/* Rows a grid_batch_prepare block copies: each plane of a tile is read a run of 2 KiB (the hardware
 * prefetcher follows a run that long; 512 bytes ended each run before it did: the bench's grid
 * case's copies 15% faster, one thread), and a block's copy of 32 channels, 64 KiB, stays in L2 */
#define TRANSPOSE_ROWS 256
#define PREPARE_AHEAD 64 /* rows (8 lines) between the prefetch of a plane's line and its use */

/* One value's part of grid_batch_prepare's scan: plain (finite, at most 26 bits, 0 or ≥ 2^-484:
 * products exact and clear) and dx_g_ok, as bits set where they fail (bit 0, bit 1). */
static inline int scan_bad(double x)
{
    double a = fabs(x);
    return (!ref_short(x) || (x != 0 && !(a >= 0x1p-484 && a <= DBL_MAX))) | !dx_g_ok(x) << 1;
}

/* The same for four values, as lane masks (-1: fails) */
static inline __attribute__((always_inline)) void scan_bad4(const dxv *x, dxvi *plain,
                                                           dxvi *gbad)
{
    dxv a = DXV_ABS(*x);
    dxvi nz = *x != 0, lng = ((dxvi)*x & 0x7ffffff) != 0;
    *plain |= lng | (nz & ~((a >= 0x1p-484) & (a <= DBL_MAX)));
    *gbad |= lng | (nz & ~((a >= DX_G_MIN) & (a <= DX_G_MAX)));
}

/* Rows j .. j + 3 of 4 channels (plane i at r + i·hw), each plane's 4 rows one vector: scanned
 * as scan_bad4 does (gb[i] the lanes of channel i), their largest magnitude into *mv, and with dst
 * stored row by row (row k's 4 channels at dst + k·C) by a 4×4 transpose in registers. */
static inline __attribute__((always_inline)) void prepare_quad(const double *r, int64_t hw,
                                                              int64_t C, double *dst, dxvi *pb,
                                                              dxvi *gb, dxv *mv)
{
    dxv x[4];
    for (int i = 0; i < 4; i++) {
        memcpy(&x[i], r + i * hw, sizeof x[i]);
        scan_bad4(&x[i], pb, &gb[i]);
        dxv a = DXV_ABS(x[i]);
        dxvi gt = a > *mv;
        *mv = (dxv)(((dxvi)a & gt) | ((dxvi)*mv & ~gt));
    }
    if (!dst)
        return;
    dxv t0 = __builtin_shufflevector(x[0], x[1], 0, 4, 2, 6);
    dxv t1 = __builtin_shufflevector(x[0], x[1], 1, 5, 3, 7);
    dxv t2 = __builtin_shufflevector(x[2], x[3], 0, 4, 2, 6);
    dxv t3 = __builtin_shufflevector(x[2], x[3], 1, 5, 3, 7);
    dxv y[4] = {__builtin_shufflevector(t0, t2, 0, 1, 4, 5),
                __builtin_shufflevector(t1, t3, 0, 1, 4, 5),
                __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
                __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
    for (int k = 0; k < 4; k++)
        memcpy(dst + k * C, &y[k], sizeof y[k]);
}

/* Row j of 8 channels (plane i at r + i·hw): scanned (gb[i / 4] the lanes of channel i) and its
 * largest magnitude into *mv, copied to dst (the row's 8 channels) when not NULL */
static inline __attribute__((always_inline)) void prepare_row8(const double *r, int64_t hw,
                                                              double *dst, dxvi *pb,
                                                              dxvi *gb, dxv *mv)
{
    for (int h = 0; h < 2; h++) {
        const double *q = r + 4 * h * hw;
        dxv x = {q[0], q[hw], q[2 * hw], q[3 * hw]}, a = DXV_ABS(x);
        if (dst)
            memcpy(dst + 4 * h, &x, sizeof x);
        scan_bad4(&x, pb, &gb[h]);
        dxvi gt = a > *mv;
        *mv = (dxv)(((dxvi)a & gt) | ((dxvi)*mv & ~gt));
    }
}

/* Rows j0 .. j1 − 1 of one tensor's batch (plane c at src + c·hw): into dst channel-innermost when
 * not NULL, and scanned: *plain and gok[c] (when not NULL; shared by the team, so cleared by
 * relaxed atomic stores, each storing false) cleared where a value fails them, *m the largest
 * magnitude (NaN ignored, as ref_fmax does). Tiles of 8 channels × the rows: each plane is read a
 * run of consecutive elements at a time (a plane apart, reading one element per plane would map
 * every read to one cache set), whole cache lines both sides; 4 rows of 4 channels are read as a
 * vector a plane and transposed in registers (prepare_quad: 4 loads and 8 shuffles for what
 * took 16 scalar loads and their inserts), each plane's lines asked for PREPARE_AHEAD rows
 * ahead (the loads wait on memory: 8 runs at once, a plane apart), the rows past the last 4 one
 * at a time (prepare_row8). */
GRID_CLONES static void prepare_rows(const double *src, int64_t hw, int64_t C, int64_t j0,
                                     int64_t j1, double *dst, bool *gok, bool *plain, double *m)
{
    int bad = 0;
    double mx = *m;
    int64_t c0 = 0;
    for (; c0 + 8 <= C; c0 += 8) {
        dxvi pb = {0, 0, 0, 0}, gq[8] = {pb, pb, pb, pb, pb, pb, pb, pb}, gr[2] = {pb, pb};
        dxv mv = {mx, mx, mx, mx};
        const double *r = src + c0 * hw;
        int64_t j = j0;
        for (; j + 4 <= j1; j += 4) {
            for (int i = 0; i < 8 && (j & 4) == 0; i++) /* a line of each plane, a line a time */
                __builtin_prefetch(r + i * hw + j + PREPARE_AHEAD);
            for (int h = 0; h < 2; h++)
                prepare_quad(r + 4 * h * hw + j, hw, C, dst ? dst + j * C + c0 + 4 * h : NULL,
                             &pb, &gq[4 * h], &mv);
        }
        for (; j < j1; j++)
            prepare_row8(r + j, hw, dst ? dst + j * C + c0 : NULL, &pb, gr, &mv);
        for (int l = 0; l < 4; l++) {
            bad |= pb[l] != 0;
            mx = ref_fmax(mx, mv[l]);
        }
        for (int i = 0; i < 8 && gok; i++)
            if (dxv_any(&gq[i]) || gr[i / 4][i % 4])
                __atomic_store_n(&gok[c0 + i], false, __ATOMIC_RELAXED);
    }
    for (int64_t j = j0; j < j1 && c0 < C; j++) /* the last channels, fewer than 8 */
        for (int64_t c = c0; c < C; c++) {
            double x = src[c * hw + j];
            int b = scan_bad(x);
            if (dst)
                dst[j * C + c] = x;
            if (gok && (b & 2))
                __atomic_store_n(&gok[c], false, __ATOMIC_RELAXED);
            bad |= b & 1;
            mx = ref_fmax(mx, fabs(x));
        }
    *plain = *plain && !bad;
    *m = mx;
}

/* Fills buf (when not NULL) with batch n's copies of grid_batch_view_of and, with `scan` (v's plain true
 * and maxima 0 before), v's plain, max_go and max_in from the batch's gradOutput and input, and
 * with buf v->gsplit when not NULL (all true before; cleared in place, no per-thread copy to
 * allocate), read once for all. Called by every thread of the team, ending in one barrier.
 * Blocks of TRANSPOSE_ROWS rows (prepare_rows): the block's rows stay in cache while they
 * fill. Claimed (claim: grid_batch_prepare_blocks of them) in each thread's order
 * (ref_share_next): a thread writes the same part of the copies batch after batch, and one
 * that starts late (the first call's new thread, or one the system holds back) leaves its
 * blocks to the other instead of making it wait at the barrier. */
int64_t grid_batch_prepare_blocks(const ref_grid_params *p)
{
    return (p->h_out * p->w_out + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS +
           (p->h_in * p->w_in + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS;
}

void grid_batch_prepare(const gctx *G, int64_t n, double *buf, bool in, bool scan,
                        int64_t *claim, batch_view *v)
{
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in, C = p->c;
    const double *go = G->go + n * C * hw_out, *gin = G->in + n * C * hw_in;
    int64_t bo = (hw_out + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS;
    int64_t blocks = bo + (in || scan ? (hw_in + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS : 0);
    bool plain = true, *gok = buf ? v->gsplit : NULL;
    double mg = 0, mi = 0;
    int t = omp_get_thread_num(), nth = omp_get_num_threads();
    for (int64_t j = 0, b; (b = ref_share_next(claim, blocks, &j, t, nth, n + 1)) >= 0;) {
        bool o = b < bo;
        int64_t hw = o ? hw_out : hw_in, j0 = (o ? b : b - bo) * TRANSPOSE_ROWS;
        int64_t j1 = j0 + TRANSPOSE_ROWS < hw ? j0 + TRANSPOSE_ROWS : hw;
        const double *src = o ? go : gin;
        double *dst = buf ? buf + (o ? 0 : hw_out * C) : NULL;
        double m = 0;
        prepare_rows(src, hw, C, j0, j1, o || in ? dst : NULL, o ? gok : NULL, &plain, &m);
        if (o)
            mg = ref_fmax(mg, m);
        else
            mi = ref_fmax(mi, m);
    }
#pragma omp critical(grid_batch_prepare)
    {
        if (scan) {
            v->plain = v->plain && plain;
            v->max_go = ref_fmax(v->max_go, mg);
            v->max_in = ref_fmax(v->max_in, mi);
        }
    }
#pragma omp barrier
}

void grid_point_eval(const gctx *G, int64_t n, int64_t pix, gpoint *pt, grid_scratch *t)
{
    const ref_grid_params *p = G->p;
    const double *gv = G->grid + (n * p->h_out * p->w_out + pix) * 2;
    for (int i = 0; i < 2; i++) { /* no outcomes yet (grid_axis_clear may follow) */
        pt->ax[i].n = 0;
        pt->ax[i].o = &pt->ax[i].first;
    }
    pt->unres = false;
    pt->out = !isfinite(gv[0]) || !isfinite(gv[1]);
    if (pt->out)
        return;
    grid_axis_eval(&pt->ax[0], gv[0], p->w_in, p, &G->cf, t, !G->force);
    grid_axis_eval(&pt->ax[1], gv[1], p->h_in, p, &G->cf, t, !G->force);
    pt->unres = pt->ax[0].unresolvable || pt->ax[1].unresolvable || !pt->ax[0].n || !pt->ax[1].n;
}

uint8_t grid_point_kind(const gpoint *pt)
{
    const grid_axis *ax = &pt->ax[0], *ay = &pt->ax[1];
    return (uint8_t)((pt->out ? PT_OUT : 0) | (pt->unres ? PT_UNRES : 0) |
                     (ax->n * ay->n > 1 ? PT_MULTI : 0) |
                     ((ax->n && ax->o[0].mp) || (ay->n && ay->o[0].mp) || ax->n > 1 ||
                              ay->n > 1
                          ? PT_CLEAR
                          : 0));
}

void *grid_work_carve(char **at, size_t bytes)
{
    void *p = bytes ? *at : NULL;
    *at += WORK_ROUND(bytes);
    return p;
}

/* The call's work block of `total` bytes, *raw what to free. From two huge pages on it starts on
 * a huge-page boundary and spans whole ones, inside an allocation one huge page larger, which
 * ref_big_alloc asks to be huge pages: a block malloc places leaves up to 2 MiB at each end in
 * 4 KiB pages (on the bench's grid case ~950 of the first call's ~1040 faults, with the chunk
 * buffer's). posix_memalign would ask the allocator for more than the size it last freed on
 * every call, so it would map fresh memory each time; this size is the same from call to call. */
char *grid_work_block(size_t total, char **raw)
{
    if (total < 2 * GRID_HUGE_PAGE)
        return *raw = ref_big_alloc(total, 1, false);
    return grid_huge_block(total, raw);
}

/* total bytes in whole huge pages on a huge-page boundary, inside an allocation one huge page
 * larger that ref_big_alloc asks to be huge pages; *raw what to free */
char *grid_huge_block(size_t total, char **raw)
{
    const size_t huge = GRID_HUGE_PAGE;
    size_t span = (total + huge - 1) & ~(huge - 1);
    *raw = ref_big_alloc(span + huge, 1, false);
    return *raw ? (char *)(((uintptr_t)*raw + huge - 1) & ~(uintptr_t)(huge - 1)) : NULL;
}

/* A chunk buffer of cap elements carved from a work block, set up as ref_output_alloc sets its
 * arrays once grid_chunkbuf_view_clear has (no alternatives: index -1, count 0); ref_chunkbuf_start
 * clears the rest before each use. Its interval offsets are allocated on first need
 * (ref_chunkbuf_ival, grid_chunk_ival): they and the alternatives ref_output_set_alts attaches are
 * its own to free, the rest the block's. */
size_t grid_chunkbuf_view_bytes(int64_t cap)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);
    return WORK_ROUND(n * sizeof(ref_value)) + WORK_ROUND(n) + WORK_ROUND(n * sizeof(int64_t)) +
           WORK_ROUND(n * sizeof(int32_t));
}

void grid_chunkbuf_view(ref_chunkbuf *b, int64_t cap, char **at)
{
    size_t n = (size_t)(cap > 0 ? cap : 1);
    memset(b, 0, sizeof *b);
    b->cap = (int64_t)n;
    b->o.v = grid_work_carve(at, n * sizeof(ref_value));
    b->o.flags = grid_work_carve(at, n);
    b->o.alt_first = grid_work_carve(at, n * sizeof(int64_t));
    b->o.alt_count = grid_work_carve(at, n * sizeof(int32_t));
}

void grid_chunkbuf_view_clear(ref_chunkbuf *b)
{
    memset(b->o.alt_first, 0xff, (size_t)b->cap * sizeof(int64_t)); /* -1: two's complement */
    memset(b->o.alt_count, 0, (size_t)b->cap * sizeof(int32_t));
}
