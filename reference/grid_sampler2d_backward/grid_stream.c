/* ref_grid_stream: every batch of a call by one OpenMP team, its chunks handed on from inside
 * it (see below). */
#include "grid_values.h"

/* ---- one OpenMP team per call ----
 * Every batch's steps run in one team, separated by barriers (a parallel region costs a wake
 * of every thread and a join; with OMP_WAIT_POLICY=passive, as aclcts runs, each is a futex
 * round trip), and the calling thread (the team's thread 0) hands the chunks on from inside it:
 * input_grad's chunks alternate between two buffers, so while it hands chunk k on the others
 * compute chunk k + 1. Per batch: its setup (thread 0), grid_batch_prepare, the points and their
 * dgrid (team), grid_grad's tail and the dx tables (thread 0, while the others start on the dx
 * terms), the dx terms (team), then input_grad chunk by chunk. Every thread meets every barrier
 * and work-sharing loop of every batch; after an error (fail) the steps do nothing (but the
 * points' coordinates, which the terms read), so no thread waits at a barrier another skips. */

/* input_grad's chunk k of a batch (planes c0 .. c0 + np − 1) in one of the two buffers */
typedef struct {
    ref_chunkbuf b;
    ref_altlist *alts;   /* alternatives of elements ambiguous points reach, or NULL */
    uint8_t *fallback;   /* dx_finish4's marks, laid out as the chunk (work block) */
    bool *split;         /* per DXL-plane group: dx_sum_split applies (work block) */
    int64_t c0, np;
} dx_chunk;

typedef struct {
    const gctx *G;
    const ref_sink *s;
    batch_work *W;
    bool dx, dgrid, stash;
    bool scan;              /* grid_batch_prepare scans the batch (dgrid, bilinear) */
    int64_t nkept, nxb;     /* chunk views carved from the work block: gb's, xc's */
    int64_t group, nchunks; /* planes per input_grad chunk, its chunks per batch */
    ref_chunkbuf *gb;       /* grid_grad's chunks: every batch's (stash) or one */
    ref_altlist *galts;     /* the batch's grid_grad alternatives (all empty: kept for the next) */
    dx_chunk xc[2];
    batch_view v;           /* the batch's view, grid_batch_prepare completes it */
    dx_batch D;
    bool rest_all;          /* D has ambiguous or unresolvable points: every chunk's rest */
    int64_t xhits[3];       /* atomic: grid_dx_block's answers of chunk k in xhits[k % 3] (reset for
                             * chunk k + 2 while every thread is past reading chunk k − 1's) */
    /* team_dx_pipe: whether the batch's chunks take it, its items per chunk (ipc, the last
     * chunk's last), chunks below ready have their buffer ready, items done of each buffer's
     * chunk (atomic), chunks handed on (thread 0's), and each buffer's claims on its items
     * (ref_share_next: ipc each, keyed by batch and chunk) */
    bool pipe;
    int64_t ipc, last, ready, done[2], emitted;
    int64_t *claim;
    int fail;               /* atomic: an error, every later step does nothing */
    int rc;                 /* the sink's return when it failed */
} grid_team;

static bool team_failed(grid_team *T) { return __atomic_load_n(&T->fail, __ATOMIC_RELAXED); }
static void team_fail(grid_team *T) { __atomic_store_n(&T->fail, 1, __ATOMIC_RELAXED); }

/* An alternative of a non-finite element that is a finite value past the double range (its
 * excess lo, not a class's 0) with a coordinate term as large: another branch's device, whose
 * weight there may be 0 where the exact one is −2^-52 against val·g = DBL_MAX², may answer any
 * double, so the element's class cannot be demanded. */
static bool beyond_beside_class(const ref_value *a)
{
    return isinf(a->hi) && a->lo != 0 && !(a->coord_err < DBL_MAX * 0x1p-30);
}

#define MARK_AHEAD 16 /* elements (cache lines) between a prefetch and its use: the hardware's
                       * stream stops at each 4 KiB page, 64 elements */

/* The flags element i of a chunk gets from its values and alternatives alike, set once before
 * the chunk is handed on: unjudged where a value is beyond the double range (grid_beyond_range),
 * REF_FLAG_RANGE where a device may overflow (grid_may_pass_range). A non-finite element is
 * judged by its class, unless an alternative is beyond beside it (beyond_beside_class). */
static inline void mark_one(const gctx *G, ref_output *o, int64_t i)
{
    uint8_t *f = &o->flags[i];
    if (*f & REF_FLAG_UNCHECKABLE)
        return;
    if (*f & REF_FLAG_NONFINITE) {
        for (int32_t a = 0; (*f & REF_FLAG_AMBIGUOUS) && o->alt_first[i] >= 0 &&
                            a < o->alt_count[i]; a++)
            if (beyond_beside_class(&o->alts[o->alt_first[i] + a]))
                *f |= REF_FLAG_UNCHECKABLE;
        return;
    }
    bool back = grid_beyond_range(&o->v[i]), over = grid_may_pass_range(G, &o->v[i]);
    for (int32_t a = 0; (*f & REF_FLAG_AMBIGUOUS) && o->alt_first[i] >= 0 &&
                        a < o->alt_count[i]; a++) {
        back = back || grid_beyond_range(&o->alts[o->alt_first[i] + a]);
        over = over || grid_may_pass_range(G, &o->alts[o->alt_first[i] + a]);
    }
    if (back)
        *f |= REF_FLAG_UNCHECKABLE;
    if (over)
        *f |= REF_FLAG_RANGE;
}

/* mark_one of every element of a chunk; with marks (input_grad's chunks made without
 * alternatives, team_dx_pipe), only of those it marks: grid_dx_block gave the others, each a
 * finite value it decided or a non-finite class without alternatives, their REF_FLAG_RANGE
 * already (dx_mark_range), which is all mark_one would give them. */
static void mark_range(const gctx *G, ref_output *o, const uint8_t *marks)
{
    int64_t n = o->numel;
    if (marks) { /* nearly all 0: eight at a time (a byte at a time was 3% of the bench's grid) */
        for (int64_t i = 0; i < n; i++) {
            uint64_t w;
            if (i + 8 <= n && (memcpy(&w, marks + i, sizeof w), w == 0)) {
                i += 7;
                continue;
            }
            if (marks[i])
                mark_one(G, o, i);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        if (i + MARK_AHEAD < n)
            __builtin_prefetch(&o->v[i + MARK_AHEAD]);
        mark_one(G, o, i);
    }
}

/* The sink's handing on of chunk b (slot, first element) from thread 0; an error stops the team. */
static void team_emit(grid_team *T, int slot, int64_t first, ref_chunkbuf *b,
                      const uint8_t *marks)
{
    mark_range(T->G, &b->o, marks);
    int rc = team_failed(T) ? 0 : ref_emit(T->s, slot, first, b);
    if (rc) {
        T->rc = rc;
        team_fail(T);
    }
}

/* Thread 0, before batch n: its view, and its grid_grad chunk started. */
static void team_batch_start(grid_team *T, int64_t n)
{
    const ref_grid_params *p = T->G->p;
    int64_t hw_out = p->h_out * p->w_out;
    batch_work *W = T->W;
    T->v = grid_batch_view_of(T->G, n, W->tbuf, T->dgrid);
    T->v.gsplit = W->gsplit;
    T->v.plain = T->scan; /* known when grid_batch_prepare scans the batch, else false */
    if (W->gsplit)
        memset(W->gsplit, 1, (size_t)p->c);
    W->tsplit = W->tone_word = W->tunit = true; /* grid_dx_terms_team: each thread clears what
                                                 * its terms fail */
    W->tmax = 0;
    W->ntmax = 0;
    W->tpix = NULL;
    if (!T->dgrid || team_failed(T))
        return;
    ref_chunkbuf_start(&T->gb[T->stash ? n : 0], 2 * hw_out);
    if (!T->galts && !(T->galts = calloc((size_t)(hw_out ? 2 * hw_out : 1), sizeof *T->galts)))
        team_fail(T);
}

/* Batch n's grid points by the team: grid_batch_prepare, then the coordinate stage of each point and
 * with dgrid its dgrid into the batch's grid_grad chunk. */
static void team_points(grid_team *T, int64_t n, grid_scratch *t, mterms *mt, int64_t *h,
                        int64_t *f)
{
    const gctx *G = T->G;
    const ref_grid_params *p = G->p;
    batch_work *W = T->W;
    int64_t hw_out = p->h_out * p->w_out;
    ref_output *out = T->dgrid ? &T->gb[T->stash ? n : 0].o : NULL;
    if (W->tbuf || T->scan)
        grid_batch_prepare(G, n, W->tbuf, T->dgrid, T->scan, W->bclaim, &T->v);
    /* v is final after grid_batch_prepare's barrier: each thread its own copy with lean_all (no
     * barrier for one thread to set it) */
    batch_view lv = T->v;
    lv.lean_all = T->scan && grid_dgrid_lean_all(G, &lv);
    /* blocks claimed in each thread's order (ref_share_next): a thread's points are then
     * mostly the share grid_dx_terms_team reads on it, and their room stays in its cache */
    int th = omp_get_thread_num(), nth = omp_get_num_threads();
    int64_t nb = (hw_out + POINT_BLOCK - 1) / POINT_BLOCK;
    for (int64_t j = 0, b; (b = ref_share_next(W->pclaim, nb, &j, th, nth, n + 1)) >= 0;) {
        int64_t p0 = b * POINT_BLOCK;
        int64_t p1 = p0 + POINT_BLOCK < hw_out ? p0 + POINT_BLOCK : hw_out;
        for (int64_t pix = p0; pix < p1; pix++) { /* even after an error: grid_dx_terms_team reads pe */
            grid_point_eval(G, n, pix, &W->pts[pix], t);
            W->kind[pix] = grid_point_kind(&W->pts[pix]);
            if (W->terms)
                grid_dx_point_elems(p, &W->pts[pix], W->pe + 4 * pix);
        }
        if (out && !team_failed(T) &&
            grid_dgrid_points(G, &lv, W->pts, n, p0, p1, mt, out, T->galts, h, f) != 0)
            team_fail(T);
    }
#pragma omp barrier
}

/* Thread 0, after batch n's points: grid_grad's unresolvable points as intervals, its
 * alternatives attached (and the chunk handed on when it is the only output). */
static void team_dgrid_tail(grid_team *T, int64_t n)
{
    const gctx *G = T->G;
    const ref_grid_params *p = G->p;
    int64_t hw_out = p->h_out * p->w_out;
    ref_chunkbuf *g = &T->gb[T->stash ? n : 0];
    double *maxabs = NULL;
    bool multi = false;
    for (int64_t pix = 0; pix < hw_out; pix++) {
        uint8_t kind = T->W->kind[pix];
        multi = multi || (kind & PT_MULTI);
        if (team_failed(T) || (kind & (PT_OUT | PT_UNRES)) != PT_UNRES ||
            p->interpolation != REF_INTERP_BILINEAR)
            continue;
        if ((!maxabs && !(maxabs = grid_plane_maxabs(G, n))) || !grid_chunk_ival(&g->o))
            team_fail(T);
        else
            grid_dgrid_unresolved(G, n, pix, maxabs, &g->o);
    }
    free(maxabs);
    /* only points of several outcomes have alternatives: without one every list is empty (the
     * chunk's have none already), and the array, zero still, serves the next batch instead of
     * a new one (2·H_out·W_out lists to clear and scan on the calling thread, the others
     * waiting) */
    if (T->galts && (multi || team_failed(T))) {
        if (ref_output_set_alts(&g->o, T->galts) != 0) /* frees galts, whatever it returns */
            team_fail(T);
        T->galts = NULL;
    }
    if (!T->stash)
        team_emit(T, 4, n * hw_out * 2, g, NULL);
}

/* A chunk of np planes as work items: blocks of DX_BLOCK elements of all its DXL-plane groups,
 * or of a share of them (*gs shares) when the planes are too small for DX_ITEMS blocks (fine
 * enough that a thread the system holds back delays the other by one block at most). */
#define DX_ITEMS 32
#define DX_BLOCK 128
static int64_t dx_chunk_items(const ref_grid_params *p, int64_t np, int64_t *gs)
{
    int64_t hw_in = p->h_in * p->w_in, ng = (np + DXL - 1) / DXL;
    int64_t nb = (hw_in + DX_BLOCK - 1) / DX_BLOCK;
    *gs = nb >= DX_ITEMS ? 1 : (DX_ITEMS + nb - 1) / nb; /* group shares per block */
    *gs = *gs < ng ? *gs : ng;
    return nb * *gs;
}

/* Thread 0: input_grad's chunk k of the batch made ready in its buffer (k % 2). */
static void dx_chunk_start(grid_team *T, int64_t k)
{
    const ref_grid_params *p = T->G->p;
    int64_t hw_in = p->h_in * p->w_in;
    dx_chunk *X = &T->xc[k % 2];
    const dx_batch *D = &T->D;
    X->c0 = k * T->group;
    X->np = p->c - X->c0 < T->group ? p->c - X->c0 : T->group;
    __atomic_store_n(&T->xhits[k % 3], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&T->done[k % 2], 0, __ATOMIC_RELAXED);
    ref_chunkbuf_start(&X->b, X->np * hw_in);
    memset(X->fallback, 0, (size_t)(X->np * hw_in)); /* dx_finish4 marks only its own */
    for (int64_t g = 0; g < (X->np + DXL - 1) / DXL; g++) {
        int64_t c = X->c0 + g * DXL;
        const batch_view *bv = &T->v;
        bool s = !T->G->force && c + DXL <= X->c0 + X->np && bv->go_cs == 1 && bv->gsplit;
        for (int l = 0; s && l < DXL; l++)
            s = bv->gsplit[c + l];
        X->split[g] = s;
    }
    /* alternatives come from ambiguous points only */
    X->alts = D->namb ? calloc((size_t)(X->np * hw_in), sizeof *X->alts) : NULL;
    if ((D->namb && !X->alts) || (T->rest_all && !ref_chunkbuf_ival(&X->b)))
        team_fail(T);
}

/* Thread 0, after batch n's points and dgrid (before their dx terms are made): dgrid's tail,
 * dx's tables, input_grad's first two chunks made ready. */
static void team_batch_mid(grid_team *T, int64_t n)
{
    if (T->dgrid)
        team_dgrid_tail(T, n);
    if (!T->dx || team_failed(T))
        return;
    if (grid_dx_batch_build(T->G, n, T->W, &T->D) != 0)
        team_fail(T);
    T->rest_all = T->D.namb || T->D.any_unres || T->D.nnfm;
    for (int64_t k = 0; k < 2 && k < T->nchunks && !team_failed(T); k++)
        dx_chunk_start(T, k);
    const ref_grid_params *p = T->G->p;
    int64_t gs, last = p->c - (T->nchunks - 1) * T->group; /* the last chunk's planes */
    T->pipe = !T->G->force && !T->rest_all;
    T->ipc = dx_chunk_items(p, T->group, &gs);
    T->last = dx_chunk_items(p, last, &gs);
    T->emitted = 0;
    T->ready = T->nchunks < 2 ? T->nchunks : 2;
}

/* Thread 0, after input_grad's chunk k of batch n: its alternatives attached, the chunk handed
 * on, its buffer made ready for chunk k + 2. */
static void dx_chunk_done(grid_team *T, int64_t n, int64_t k)
{
    const ref_grid_params *p = T->G->p;
    dx_chunk *X = &T->xc[k % 2];
    if (X->alts && ref_output_set_alts(&X->b.o, X->alts) != 0) /* frees alts, whatever it returns */
        team_fail(T);
    X->alts = NULL;
    team_emit(T, 3, (n * p->c + X->c0) * p->h_in * p->w_in, &X->b, T->pipe ? X->fallback : NULL);
    if (k + 2 < T->nchunks && !team_failed(T))
        dx_chunk_start(T, k + 2);
}

/* Item w of input_grad's chunk k (planes c0 .. c0 + np − 1, its buffer X): grid_dx_block, its answers
 * counted into T->xhits[k % 3] and *h. */
static void dx_chunk_item(grid_team *T, int64_t k, dx_chunk *X, int64_t c0, int64_t np,
                          int64_t w, int64_t *h)
{
    const gctx *G = T->G;
    int64_t hw_in = G->p->h_in * G->p->w_in, gs, hb = 0;
    (void)dx_chunk_items(G->p, np, &gs);
    int64_t ng = (np + DXL - 1) / DXL, e0 = w / gs * DX_BLOCK;
    int64_t g0 = w % gs * ng / gs, g1 = (w % gs + 1) * ng / gs;
    const batch_work *W = T->W;
    dxterms terms = {W->terms, W->toff, W->tsplit, W->tone_word, W->tunit, W->tpix, W->tmax,
                     W->ntmax};
    grid_dx_block(G, &terms, &T->v, c0, np, g0, g1, X->split, e0,
                  e0 + DX_BLOCK < hw_in ? e0 + DX_BLOCK : hw_in, X->fallback, &X->b.o, &hb);
    __atomic_fetch_add(&T->xhits[k % 3], hb, __ATOMIC_RELAXED);
    *h += hb;
}

/* input_grad's chunk k of batch n by the team, OpenMP over its items, then, where some element
 * is marked or ambiguous points exist, over planes (grid_dx_plane_rest); thread 0 then hands it on
 * while the others go on to chunk k + 1. */
static void team_dx_chunk(grid_team *T, int64_t n, int64_t k, mterms *mt, int64_t *h,
                          int64_t *f)
{
    const gctx *G = T->G;
    int64_t hw_in = G->p->h_in * G->p->w_in, gs;
    dx_chunk *X = &T->xc[k % 2];
    /* read before the first barrier: thread 0 readies this buffer for chunk k + 2 after it */
    int64_t c0 = X->c0, np = X->np, items = dx_chunk_items(G->p, np, &gs);
#pragma omp for schedule(dynamic, 1)
    for (int64_t w = 0; w < items; w++)
        if (!team_failed(T))
            dx_chunk_item(T, k, X, c0, np, w, h);
    /* grid_dx_block counts every element it answers, and marks the others: the planes' rest only
     * where some element is marked or ambiguous points exist (every thread reads the same
     * count and rest_all after the loop's barrier) */
    if (__atomic_load_n(&T->xhits[k % 3], __ATOMIC_RELAXED) < np * hw_in || T->rest_all) {
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = c0; c < c0 + np; c++)
            if (!team_failed(T) && grid_dx_plane_rest(G, T->W->pts, &T->D, n, c, (c - c0) * hw_in,
                                                      X->fallback, mt, &X->b.o, X->alts, f) != 0)
                team_fail(T);
    }
#pragma omp master
    dx_chunk_done(T, n, k);
}

/* ---- input_grad's chunks without a barrier each ----
 * Where no chunk needs its planes' rest for ambiguous points (rest_all) and off force_mpfr
 * (where every element takes MPFR, by planes in parallel above), a batch's chunks are one
 * stream of items, chunk after chunk, each thread claiming its own share of a chunk's items
 * first (ref_share_next), as avg-pool's pipe does: a thread waits only until its chunk's buffer is
 * ready (T->ready: chunk
 * k − 2 handed on and the buffer reset); thread 0 hands each chunk on once all its items are
 * done (T->done), first giving the rare elements grid_dx_block marked their MPFR value itself. */

/* Thread 0: the next chunk of batch n handed on (once all its items are done: waiting for them
 * when wait, else only if they are), its buffer made ready for the chunk two on. False when it
 * was not done or the team failed. */
static bool dx_pipe_emit(grid_team *T, int64_t n, bool wait, mterms *mt, int64_t *f)
{
    const ref_grid_params *p = T->G->p;
    int64_t c = T->emitted, hw_in = p->h_in * p->w_in, gs;
    if (c >= T->nchunks || team_failed(T))
        return false;
    dx_chunk *X = &T->xc[c % 2];
    int64_t items = dx_chunk_items(p, X->np, &gs), *done = &T->done[c % 2];
    if (wait ? !ref_wait_until(done, items, &T->fail)
             : __atomic_load_n(done, __ATOMIC_ACQUIRE) < items)
        return false;
    bool marked = __atomic_load_n(&T->xhits[c % 3], __ATOMIC_RELAXED) < X->np * hw_in;
    for (int64_t pl = X->c0; marked && pl < X->c0 + X->np && !team_failed(T); pl++)
        if (grid_dx_plane_rest(T->G, T->W->pts, &T->D, n, pl, (pl - X->c0) * hw_in, X->fallback, mt,
                               &X->b.o, X->alts, f) != 0)
            team_fail(T);
    T->emitted = c + 1;
    dx_chunk_done(T, n, c); /* resets done[c % 2] for chunk c + 2 */
    __atomic_store_n(&T->ready, c + 3 < T->nchunks ? c + 3 : T->nchunks, __ATOMIC_RELEASE);
    return !team_failed(T);
}

/* Whether input_grad's chunk k is ready for the calling thread to work in (it waits until it
 * is; thread 0 hands chunks on meanwhile: only it readies buffers, so it never waits on
 * itself); false when the team failed. */
static bool dx_pipe_ready(grid_team *T, int64_t n, int64_t k, bool t0, mterms *mt, int64_t *f)
{
    if (!t0)
        return ref_wait_until(&T->ready, k + 1, &T->fail);
    while (__atomic_load_n(&T->ready, __ATOMIC_ACQUIRE) <= k && !team_failed(T))
        (void)dx_pipe_emit(T, n, true, mt, f);
    return !team_failed(T);
}

/* Batch n's input_grad, every chunk, by the team as one stream of items (see above). */
static void team_dx_pipe(grid_team *T, int64_t n, mterms *mt, int64_t *h, int64_t *f)
{
    int t = omp_get_thread_num(), nth = omp_get_num_threads();
    for (int64_t k = 0; k < T->nchunks && dx_pipe_ready(T, n, k, t == 0, mt, f); k++) {
        dx_chunk *X = &T->xc[k % 2];
        int64_t items = k + 1 < T->nchunks ? T->ipc : T->last;
        int64_t *claim = T->claim + k % 2 * T->ipc, key = n * T->nchunks + k + 1;
        for (int64_t j = 0, w; !team_failed(T) &&
                               (w = ref_share_next(claim, items, &j, t, nth, key)) >= 0;) {
            dx_chunk_item(T, k, X, X->c0, X->np, w, h);
            __atomic_fetch_add(&T->done[k % 2], 1, __ATOMIC_RELEASE);
            while (t == 0 && dx_pipe_emit(T, n, false, mt, f)) /* the chunks done by now */
                continue;
        }
    }
    while (t == 0 && dx_pipe_emit(T, n, true, mt, f))
        continue;
}

/* Thread 0, after batch n: its dx tables and its points' outcome arrays freed, batch n + 1
 * started. */
static void team_batch_end(grid_team *T, int64_t n)
{
    batch_work *W = T->W;
    grid_dx_batch_free(&T->D);
    for (int64_t pix = 0; pix < T->G->p->h_out * T->G->p->w_out; pix++)
        if (W->kind[pix] & PT_CLEAR) {
            grid_axis_clear(&W->pts[pix].ax[0]);
            grid_axis_clear(&W->pts[pix].ax[1]);
        }
    if (n + 1 < T->G->p->n)
        team_batch_start(T, n + 1);
}

/* The chunk views' alternative arrays set (grid_chunkbuf_view_clear) by the team, a buffer at a time:
 * in a process's first call (and its second, which the allocator gives new pages too) this is
 * where most pages of the kept and input_grad chunks are first touched, each a 2 MiB page for
 * the kernel to clear, now shared between the threads instead of all the calling thread's. */
static void team_views_clear(grid_team *T)
{
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t i = 0; i < T->nkept + T->nxb; i++)
        grid_chunkbuf_view_clear(i < T->nkept ? &T->gb[i] : &T->xc[i - T->nkept].b);
}

/* Every batch by one team of nth threads (see above); the fast answers and MPFR fallbacks
 * counted into *hits, *falls. */
static void team_run(grid_team *T, int nth, int64_t *hits, int64_t *falls)
{
    int64_t h = 0, f = 0;
#pragma omp parallel num_threads(nth) reduction(+ : h, f)
    {
        grid_scratch t = {.live = false};
        mterms mt = {0};
#pragma omp master
        if (T->G->p->n > 0)
            team_batch_start(T, 0);
        team_views_clear(T);
#pragma omp barrier
        for (int64_t n = 0; n < T->G->p->n; n++) {
            team_points(T, n, &t, &mt, &h, &f);
#pragma omp master
            team_batch_mid(T, n); /* while the others count dx's terms (grid_dx_terms_team) */
            if (T->W->terms)
                grid_dx_terms_team(T->G->p, T->W);
#pragma omp barrier
            /* every thread reads the same tunit after the barrier */
            if (T->dx && T->W->tunit && !T->G->force &&
                T->G->p->interpolation == REF_INTERP_NEAREST) {
                int32_t *pix = grid_dx_unit_pix(T->G->p, T->W);
#pragma omp master
                T->W->tpix = pix;
#pragma omp barrier
            }
            if (T->dx && T->pipe)
                team_dx_pipe(T, n, &mt, &h, &f);
            for (int64_t k = 0; T->dx && !T->pipe && k < T->nchunks; k++)
                team_dx_chunk(T, n, k, &mt, &h, &f);
#pragma omp master
            team_batch_end(T, n);
#pragma omp barrier
        }
        grid_scratch_clear(&t);
        grid_mterms_free(&mt);
    }
    *hits += h;
    *falls += f;
}

/* Per batch: the points (and grid_grad's chunk of the batch), then input_grad in chunks of whole
 * planes, all by one team (team_run). Memory: the batch's points, copies and dx tables, one
 * chunk of grid_grad (or all, kept), two of input_grad (reference/README.md "Memory"). */
int ref_grid_stream(const ref_grid_params *p, const double *grad_output, const double *input,
                    const double *grid, ref_options *opt, bool dx, bool dgrid, const ref_sink *s)
{
    if (!p || !params_ok(p))
        return -1;
    if (p->interpolation == REF_INTERP_BICUBIC)
        return grid_bicubic_stream(p, grad_output, input, grid, opt, dx, dgrid, s);
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    /* both outputs: grid_grad's chunks kept until input_grad's are out (slot order), when they
     * fit; else one pass per output */
    bool stash = dx && dgrid;
    if (stash && 2 * hw_out * p->n > REF_GRID_STASH_MAX) {
        int rc = ref_grid_stream(p, grad_output, input, grid, opt, true, false, s);
        return rc ? rc : ref_grid_stream(p, grad_output, input, grid, opt, false, true, s);
    }
    int64_t step = s->elems > 0 ? s->elems : REF_CHUNK_ELEMS;
    int64_t group = step / hw_in < 1 ? 1 : step / hw_in; /* planes per chunk */
    if (group > p->c)
        group = p->c > 0 ? p->c : 1;
    int64_t nchunks = (p->c + group - 1) / group, nxb = nchunks < 2 ? 1 : 2;
    /* working precision of the coordinates: FP32, or double for a DOUBLE path */
    bool dbl = opt->path.name && strstr(opt->path.name, "double");
    gctx G = {p, grad_output, input, grid,
              {dbl ? 0x1p-53 : 0x1p-24, opt->path.coord_u, opt->path.coord_eta,
               opt->path.coord_max},
              opt->force_mpfr, &opt->path, ref_path_overflow_at(&opt->path)};
    /* points: 216 bytes each, not cleared: grid_point_eval sets what is read; dx's terms; and the
     * channel-innermost copies of a batch (gradOutput for dx and dgrid, input for dgrid), when
     * that is worth it: dx reads DXL channels of a point at once, the dgrid gather a corner's.
     * One block for all, the chunk buffers and input_grad's fallback marks too (grid_work_carve):
     * the allocator keeps a block that big between calls, where it hands several smaller ones
     * back to the system and faults them in again, and all of it can be huge pages
     * (ref_big_alloc). */
    size_t nterm = (size_t)(hw_out ? 4 * hw_out : 1), npts = (size_t)(hw_out ? hw_out : 1);
    int64_t tsz = (hw_out + (dgrid ? hw_in : 0)) * p->c;
    bool copies =
        (dx || p->interpolation == REF_INTERP_BILINEAR) && p->c > 1 && tsz <= TRANSPOSE_MAX;
    int nth = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    size_t xcap = (size_t)(group * hw_in), ngroups = (size_t)(group + DXL - 1) / DXL;
    size_t sizes[8] = {npts * sizeof(gpoint), dx ? nterm * sizeof(dxterm) : 0,
                       dx ? nterm * sizeof(int64_t) : 0,
                       dx ? (size_t)(hw_in + 1) * sizeof(int64_t) : 0,
                       copies ? (size_t)tsz * sizeof(double) : 0,
                       dx ? 2 * (size_t)nth * (size_t)hw_in * sizeof(int64_t) : 0,
                       dx ? (size_t)nxb * xcap : 0, dx ? (size_t)nxb * ngroups : 0};
    size_t total = 0, nkept = stash ? (size_t)p->n : 0;
    for (int i = 0; i < 8; i++)
        total += WORK_ROUND(sizes[i]);
    total += nkept * grid_chunkbuf_view_bytes(2 * hw_out); /* grid_grad's kept chunks */
    total += dx ? (size_t)nxb * grid_chunkbuf_view_bytes(group * hw_in) : 0; /* input_grad's */
    char *raw, *block = grid_work_block(total, &raw), *at = block;
    batch_work W = {0};
    grid_team T = {.G = &G, .s = s, .W = &W, .dx = dx, .dgrid = dgrid, .stash = stash,
                   .scan = dgrid && p->interpolation == REF_INTERP_BILINEAR, .group = group,
                   .nchunks = nchunks};
    if (block) {
        W.pts = grid_work_carve(&at, sizes[0]);
        W.terms = grid_work_carve(&at, sizes[1]);
        W.pe = grid_work_carve(&at, sizes[2]);
        W.toff = grid_work_carve(&at, sizes[3]);
        W.tbuf = grid_work_carve(&at, sizes[4]);
        W.tcnt = grid_work_carve(&at, sizes[5]);
        W.tslot = W.tcnt ? W.tcnt + (size_t)nth * (size_t)hw_in : NULL;
        uint8_t *fallback = grid_work_carve(&at, sizes[6]);
        bool *split = grid_work_carve(&at, sizes[7]);
        for (int b = 0; b < nxb && dx; b++) { /* both buffers' in one part each */
            T.xc[b].fallback = fallback + (size_t)b * xcap;
            T.xc[b].split = split + (size_t)b * ngroups;
        }
    }
    W.kind = calloc(npts, 1);
    W.pclaim = calloc((size_t)(hw_out + POINT_BLOCK - 1) / POINT_BLOCK + 1, sizeof *W.pclaim);
    W.bclaim = calloc((size_t)grid_batch_prepare_blocks(p), sizeof *W.bclaim);
    if (W.tbuf && dx)
        W.gsplit = malloc((size_t)p->c); /* none: dx takes the per-term path */
    T.gb = calloc((size_t)(stash && p->n > 0 ? p->n : 1), sizeof *T.gb);
    int64_t gs, ipc = dx_chunk_items(p, group, &gs); /* the most items a chunk has */
    T.claim = dx ? calloc((size_t)(2 * ipc), sizeof *T.claim) : NULL;
    int rc = W.pts && W.kind && W.pclaim && W.bclaim && T.gb &&
             (!dx || (W.terms && W.pe && W.toff && W.tcnt && T.claim)) ? 0 : -1;
    for (size_t n = 0; rc == 0 && n < nkept; n++)
        grid_chunkbuf_view(&T.gb[n], 2 * hw_out, &at);
    for (int b = 0; rc == 0 && dx && b < nxb; b++)
        grid_chunkbuf_view(&T.xc[b].b, group * hw_in, &at);
    T.nkept = rc == 0 ? (int64_t)nkept : 0;
    T.nxb = rc == 0 && dx ? nxb : 0;
    if (rc == 0 && dgrid && !stash)
        rc = ref_chunkbuf_init(&T.gb[0], 2 * hw_out);
    int64_t hits = 0, falls = 0;
    if (rc == 0)
        team_run(&T, nth, &hits, &falls);
    rc = rc ? rc : T.rc ? T.rc : T.fail ? -1 : 0;
    free(T.galts); /* lists all empty */
    for (int64_t n = 0; rc == 0 && stash && n < p->n; n++) {
        mark_range(&G, &T.gb[n].o, NULL);
        rc = ref_emit(s, 4, n * hw_out * 2, &T.gb[n]);
    }
    for (int64_t n = 0; T.gb && stash && n < p->n; n++) { /* the rest is the work block's */
        free(T.gb[n].o.alts);
        free(T.gb[n].o.ival);
    }
    if (T.gb && !stash)
        ref_chunkbuf_free(&T.gb[0]);
    free(T.gb);
    free(T.claim);
    free(raw);
    free(W.kind);
    free(W.pclaim);
    free(W.bclaim);
    free(W.gsplit);
    for (int b = 0; b < 2; b++) { /* the rest of the buffers is the work block's */
        free(T.xc[b].b.o.alts);
        free(T.xc[b].b.o.ival);
    }
    opt->fast_hits += opt->force_mpfr ? 0 : hits;
    opt->mpfr_fallbacks += falls;
    return rc;
}
