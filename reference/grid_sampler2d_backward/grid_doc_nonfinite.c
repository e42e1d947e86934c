/* Under the documents, a NaN or ±inf grid coordinate under border or reflection padding has two
 * legal readings (docs/contract.md "Non-finite grid values"): out of bounds, contributing
 * nothing (the primary answer), or clamped into the border as PyTorch's CPU kernel does. A
 * device may read each value class its own way, so the legal answers of an element are those of
 * the grids where NaN, ±inf or both are clamped, kept as alternatives of the primary's. The
 * clamp: under border ±inf to the edge it points at and NaN to the low edge; under reflection
 * every non-finite coordinate to the low edge; always with gradient factor 0. As grid values:
 * ±1 and -1, which border's and reflection's clip take to those edges with factor 0 for either
 * align_corners (PyTorch 1.13 float64: nearest border NaN, nearest reflection NaN and ±inf at
 * column 0, bilinear border ±inf at the edge with grid gradient 0; bilinear NaN under border
 * and every bilinear non-finite coordinate under reflection crash it: by hand, the same rule). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grid_internal.h"

/* A variant's answers are kept whole: cases past this many output elements (input_grad and
 * grid_grad together) keep the primary answer and leave unjudged what a clamped point may
 * change (stream_far). */
#define DOCNF_MAX_ELEMS ((int64_t)1 << 16)
enum { CLAMP_NAN = 1, CLAMP_INF = 2 };

typedef struct {
    int nvar;
    ref_output var[3][2]; /* [variant][0: input_grad, 1: grid_grad] */
    const ref_sink *down;
    ref_chunkbuf buf;
    bool buf_live;
} docnf;

static double clamped(double g, ref_padding pad, int which)
{
    if (isnan(g)) return (which & CLAMP_NAN) ? -1 : g;
    if (isinf(g)) return (which & CLAMP_INF) ? (pad == REF_PAD_BORDER ? copysign(1, g) : -1) : g;
    return g;
}

static int out_index(int slot)
{
    return slot == REF_GRID_INPUT_GRAD ? 0 : 1;
}

/* Pushes element k's legal values (its alternatives, or its value) onto l. */
static int push_values(ref_altlist *l, const ref_output *o, int64_t k)
{
    if (!(o->flags[k] & REF_FLAG_AMBIGUOUS) || o->alt_first[k] < 0)
        return ref_altlist_push(l, &o->v[k]);
    for (int32_t i = 0; i < o->alt_count[k]; i++)
        if (ref_altlist_push(l, &o->alts[o->alt_first[k] + i]) != 0) return -1;
    return 0;
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Whether element i of a and element j of b are the same answer (a variant's element no clamped
 * point reaches): value, flags, interval and alternatives. */
static bool same_answer(const ref_output *a, int64_t i, const ref_output *b, int64_t j)
{
    if (a->flags[i] != b->flags[j] || !same_bits(a->v[i].hi, b->v[j].hi) ||
        !same_bits(a->v[i].lo, b->v[j].lo))
        return false;
    if ((a->flags[i] & REF_FLAG_INTERVAL) &&
        (!a->ival || !b->ival || !same_bits(a->ival[2 * i], b->ival[2 * j]) ||
         !same_bits(a->ival[2 * i + 1], b->ival[2 * j + 1])))
        return false;
    bool alt_a = (a->flags[i] & REF_FLAG_AMBIGUOUS) && a->alt_first[i] >= 0;
    bool alt_b = (b->flags[j] & REF_FLAG_AMBIGUOUS) && b->alt_first[j] >= 0;
    if (alt_a != alt_b || (alt_a && a->alt_count[i] != b->alt_count[j]))
        return false;
    for (int32_t k = 0; alt_a && k < a->alt_count[i]; k++) {
        const ref_value *x = &a->alts[a->alt_first[i] + k], *y = &b->alts[b->alt_first[j] + k];
        if (!same_bits(x->hi, y->hi) || !same_bits(x->lo, y->lo)) return false;
    }
    return true;
}

/* The larger of each bound field of two answers into w (a hull's bound covers both). */
static void widen(ref_value *w, const ref_value *v)
{
    ref_sum_abs_max(w, v);
    w->coord_err = fmax(w->coord_err, v->coord_err);
    w->under_mag = fmax(w->under_mag, v->under_mag);
    w->nterms = w->nterms > v->nterms ? w->nterms : v->nterms;
    w->nops = w->nops > v->nops ? w->nops : v->nops;
}

/* b's element k (an interval or a point) widened to the hull of itself and variant o's interval
 * at `at`, offsets from b's value rounded outwards. False where no finite hull exists. */
static bool hull(ref_output *b, int64_t k, const ref_output *o, int64_t at)
{
    double v = b->v[k].hi, w = o->v[at].hi;
    if (!isfinite(v) || !isfinite(w) || !o->ival) return false;
    bool iv = b->flags[k] & REF_FLAG_INTERVAL;
    double lo = iv ? b->ival[2 * k] : 0, hi = iv ? b->ival[2 * k + 1] : 0;
    lo = fmin(lo, nextafter((w - v) + o->ival[2 * at], -INFINITY));
    hi = fmax(hi, nextafter((w - v) + o->ival[2 * at + 1], INFINITY));
    if (!isfinite(lo) || !isfinite(hi)) return false;
    b->ival[2 * k] = nextafter(lo, -INFINITY);
    b->ival[2 * k + 1] = nextafter(hi, INFINITY);
    b->flags[k] |= REF_FLAG_INTERVAL;
    widen(&b->v[k], &o->v[at]);
    return true;
}

/* Element k of the chunk into b's element k: the primary's answer with every variant's values
 * as alternatives, and a variant's interval joined to the element's own (its hull). A variant's
 * unjudged element, or an interval with no finite hull, leaves the element unjudged; a variant's
 * range flags are legal answers too. */
static int merge_element(const docnf *d, int w, const ref_chunk *ch, int64_t k, ref_output *b,
                         ref_altlist *l)
{
    const ref_output *c = ch->out;
    if (push_values(l, c, k) != 0) return -1;
    for (int v = 0; v < d->nvar; v++) {
        const ref_output *o = &d->var[v][w];
        int64_t at = ch->first + k;
        if (same_answer(c, k, o, at)) continue;
        if ((o->flags[at] & REF_FLAG_UNCHECKABLE) ||
            ((o->flags[at] & REF_FLAG_INTERVAL) && !hull(b, k, o, at)))
            b->flags[k] |= REF_FLAG_UNCHECKABLE;
        b->flags[k] |= o->flags[at] & (REF_FLAG_RANGE | REF_FLAG_OPERAND_OVERFLOW);
        if (push_values(l, o, at) != 0) return -1;
    }
    return 0;
}

static int merge_chunk(void *ctx, const ref_chunk *ch)
{
    docnf *d = ctx;
    const ref_output *c = ch->out;
    int64_t n = c->numel;
    if (d->buf_live && d->buf.cap < n) {
        ref_chunkbuf_free(&d->buf);
        d->buf_live = false;
    }
    if (!d->buf_live) {
        if (ref_chunkbuf_init(&d->buf, n) != 0) return -1;
        d->buf_live = true;
    }
    ref_chunkbuf_start(&d->buf, n);
    ref_output *b = &d->buf.o;
    memcpy(b->v, c->v, (size_t)n * sizeof *b->v);
    memcpy(b->flags, c->flags, (size_t)n * sizeof *b->flags);
    for (int64_t k = 0; k < n; k++)
        b->flags[k] &= (uint8_t)~REF_FLAG_AMBIGUOUS; /* set again by ref_output_set_alts */
    double *iv = ref_chunkbuf_ival(&d->buf); /* zero: no interval yet */
    if (!iv) return -1;
    if (c->ival) memcpy(iv, c->ival, 2 * (size_t)n * sizeof *iv);
    ref_altlist *lists = calloc((size_t)(n > 0 ? n : 1), sizeof *lists);
    if (!lists) return -1;
    int rc = 0, w = out_index(ch->slot);
    for (int64_t k = 0; k < n && !rc; k++)
        rc = merge_element(d, w, ch, k, b, &lists[k]);
    if (ref_output_set_alts(b, lists) != 0 || rc) /* frees the lists */
        return -1;
    ref_chunk out = {ch->slot, ch->first, b};
    return d->down->fn(d->down->ctx, &out);
}

/* Variant `which`'s answers, whole, into d->var[d->nvar]. */
static int run_variant(docnf *d, const ref_grid_params *p, const double *go, const double *in,
                       const double *grid, int64_t ngrid, int which, ref_options *opt, bool dx,
                       bool dgrid, int64_t elems)
{
    double *g = malloc((size_t)(ngrid > 0 ? ngrid : 1) * sizeof *g);
    ref_output *o = d->var[d->nvar];
    int64_t nx = p->n * p->c * p->h_in * p->w_in, ng = p->n * p->h_out * p->w_out * 2;
    memset(o, 0, 2 * sizeof *o);
    if (!g || (dx && ref_output_alloc(&o[0], nx) != 0) ||
        (dgrid && ref_output_alloc(&o[1], ng) != 0)) {
        free(g);
        ref_output_free(&o[0]);
        ref_output_free(&o[1]);
        return -1;
    }
    d->nvar++;
    for (int64_t i = 0; i < ngrid; i++)
        g[i] = clamped(grid[i], p->padding, which);
    ref_output *outs[REF_MAX_SLOTS] = {NULL, NULL, NULL, dx ? &o[0] : NULL, dgrid ? &o[1] : NULL};
    ref_sink s = {ref_collect_chunk, outs, elems};
    int rc = ref_grid_stream(p, go, in, g, opt, dx, dgrid, &s);
    free(g);
    return rc;
}

/* Past DOCNF_MAX_ELEMS: the primary answer, with the elements a clamped point may reach left
 * unjudged, not judged by one reading alone: that point's grid_grad (the clamp's factor 0 takes
 * one axis's gradient only), and in its batch item the input_grad elements on the two outer rows
 * and columns of each side, where a clamp to an edge puts its taps (bilinear's second tap at
 * weight 0 too, which a non-finite gradient makes NaN). */
typedef struct {
    const ref_grid_params *p;
    const double *grid;
    uint8_t *batch;     /* per batch item: it has a non-finite point */
    grid_marked_sink out;
} docnf_far;

static uint8_t far_mark(const docnf_far *F, int slot, int64_t e)
{
    const ref_grid_params *p = F->p;
    if (slot == REF_GRID_GRID_GRAD) {
        const double *g = F->grid + e / 2 * 2;
        return isfinite(g[0]) && isfinite(g[1]) ? 0 : GRID_MARK_UNJUDGED;
    }
    int64_t hw = p->h_in * p->w_in, n = e / (p->c * hw), xi = e % hw % p->w_in,
            yi = e % hw / p->w_in;
    bool edge = xi <= 1 || xi >= p->w_in - 2 || yi <= 1 || yi >= p->h_in - 2;
    return F->batch[n] && edge ? GRID_MARK_UNJUDGED : 0;
}

static int far_chunk(void *ctx, const ref_chunk *ch)
{
    docnf_far *F = ctx;
    int64_t n = ch->out->numel;
    uint8_t *marks = malloc((size_t)(n > 0 ? n : 1));
    if (!marks) return -1;
    for (int64_t k = 0; k < n; k++)
        marks[k] = far_mark(F, ch->slot, ch->first + k);
    int rc = grid_emit_marked(&F->out, ch, marks);
    free(marks);
    return rc;
}

static int stream_far(const ref_grid_params *p, const double *go, const double *in,
                      const double *grid, ref_options *opt, bool dx, bool dgrid,
                      const ref_sink *s)
{
    docnf_far F = {.p = p, .grid = grid, .out = {.down = s}};
    int64_t per = 2 * p->h_out * p->w_out;
    if (!(F.batch = calloc((size_t)(p->n > 0 ? p->n : 1), 1))) return -1;
    for (int64_t i = 0; i < p->n * per; i++)
        F.batch[i / per] |= !isfinite(grid[i]);
    ref_sink f = {far_chunk, &F, s->elems};
    int rc = ref_grid_stream(p, go, in, grid, opt, dx, dgrid, &f);
    grid_marked_sink_free(&F.out);
    free(F.batch);
    return rc;
}

int ref_grid_stream_doc(const ref_grid_params *p, const double *go, const double *in,
                        const double *grid, ref_options *opt, bool dx, bool dgrid,
                        const ref_sink *s)
{
    int64_t ngrid = 2 * p->n * p->h_out * p->w_out;
    int64_t total = (dx ? p->n * p->c * p->h_in * p->w_in : 0) + (dgrid ? ngrid : 0);
    int classes = 0;
    /* zeros padding takes the plain stream whatever the grid holds: no scan of it then */
    for (int64_t i = 0; i < ngrid && p->padding != REF_PAD_ZEROS; i++)
        classes |= isnan(grid[i]) ? CLAMP_NAN : isinf(grid[i]) ? CLAMP_INF : 0;
    if (p->padding == REF_PAD_ZEROS || !classes)
        return ref_grid_stream(p, go, in, grid, opt, dx, dgrid, s);
    if (total > DOCNF_MAX_ELEMS)
        return stream_far(p, go, in, grid, opt, dx, dgrid, s);
    docnf d = {.down = s};
    int rc = 0;
    for (int which = 1; which <= 3 && !rc; which++)
        if ((which & classes) == which)
            rc = run_variant(&d, p, go, in, grid, ngrid, which, opt, dx, dgrid, s->elems);
    if (!rc) {
        ref_sink merged = {merge_chunk, &d, s->elems};
        rc = ref_grid_stream(p, go, in, grid, opt, dx, dgrid, &merged);
    }
    for (int v = 0; v < d.nvar; v++) {
        ref_output_free(&d.var[v][0]);
        ref_output_free(&d.var[v][1]);
    }
    if (d.buf_live) ref_chunkbuf_free(&d.buf);
    return rc;
}

uint64_t ref_grid_doc_work_bytes(const ref_grid_params *p)
{
    int64_t total = p->n * p->c * p->h_in * p->w_in + 2 * p->n * p->h_out * p->w_out;
    if (p->padding == REF_PAD_ZEROS || total < 0)
        return 0;
    if (total > DOCNF_MAX_ELEMS) /* a batch item flag each, a marked chunk's copy */
        return (uint64_t)p->n + (uint64_t)REF_CHUNK_ELEMS * (REF_CHUNK_ELEM_BYTES + 1 + sizeof(ref_altlist));
    /* three variants' whole outputs, the merged chunk's copy and its alternative lists */
    return (uint64_t)total * (3 * REF_CHUNK_ELEM_BYTES + REF_CHUNK_ELEM_BYTES + sizeof(ref_altlist));
}
