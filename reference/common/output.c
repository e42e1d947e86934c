/* ref_output_free and the assembly of outputs: values, flags, and the alternatives of
 * ambiguous elements flattened in element order (so the layout is thread-count independent). */
#define _DEFAULT_SOURCE /* madvise */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ref_internal.h"

/* calloc (or malloc), asking for transparent huge pages on the interior of large blocks before their first
 * touch: the output of a big problem is hundreds of MB, and 4 KiB page faults cost more than the
 * fast path's arithmetic. Only a hint (no effect where THP is off); free() still releases it. */
void *ref_big_alloc(size_t n, size_t size, bool zero)
{
    void *p = zero ? calloc(n, size) : malloc(n * size);
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n * size) & ~(huge - 1);
    if (p && b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#endif
    return p;
}

int ref_output_alloc(ref_output *o, int64_t numel)
{
    memset(o, 0, sizeof *o);
    o->numel = numel;
    size_t n = numel > 0 ? (size_t)numel : 1;
    /* v is not cleared: both ops write every field of every element (most of the bytes) */
    o->v = ref_big_alloc(n, sizeof *o->v, false);
    o->flags = ref_big_alloc(n, sizeof *o->flags, true);
    o->alt_first = ref_big_alloc(n, sizeof *o->alt_first, false);
    o->alt_count = ref_big_alloc(n, sizeof *o->alt_count, true);
    if (!o->v || !o->flags || !o->alt_first || !o->alt_count) {
        ref_output_free(o);
        return -1;
    }
    memset(o->alt_first, 0xff, n * sizeof *o->alt_first); /* -1: two's complement */
    return 0;
}

void ref_output_free(ref_output *o)
{
    if (!o)
        return;
    free(o->v);
    free(o->flags);
    free(o->alt_first);
    free(o->alt_count);
    free(o->alts);
    free(o->ival);
    free(o->plain_hi);
    memset(o, 0, sizeof *o);
}

int ref_altlist_push(ref_altlist *l, const ref_value *v)
{
    /* legal values are a set; a value two branches reach keeps the larger bound of the two
     * (one branch's terms may cancel exactly where the other's are small: ±FLT_MAX summing to
     * the same 0 a device on that branch only approaches within FLT_MAX's rounding) */
    for (int32_t i = 0; i < l->n; i++) {
        ref_value *w = &l->v[i];
        if (w->hi != v->hi || w->lo != v->lo)
            continue;
        ref_sum_abs_max(w, v);
        w->coord_err = ref_fmax(w->coord_err, v->coord_err);
        w->under_mag = ref_fmax(w->under_mag, v->under_mag);
        w->nterms = w->nterms > v->nterms ? w->nterms : v->nterms;
        w->nops = w->nops > v->nops ? w->nops : v->nops;
        if (v->min_weight > 0 && (w->min_weight == 0 || v->min_weight < w->min_weight))
            w->min_weight = v->min_weight; /* the smaller weight widens the bound */
        return 0;
    }
    if (l->n == l->cap) {
        int32_t cap = l->cap ? 2 * l->cap : 4;
        ref_value *nv = realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = *v;
    return 0;
}

int ref_output_set_alts(ref_output *o, ref_altlist *lists)
{
    int64_t total = 0;
    for (int64_t i = 0; i < o->numel; i++)
        total += lists[i].n > 1 ? lists[i].n : 0;
    o->alts = total ? malloc((size_t)total * sizeof *o->alts) : NULL;
    int rc = (total && !o->alts) ? -1 : 0;
    int64_t k = 0;
    for (int64_t i = 0; i < o->numel; i++) {
        if (!rc && lists[i].n > 1) {
            memcpy(o->alts + k, lists[i].v, (size_t)lists[i].n * sizeof *o->alts);
            o->alt_first[i] = k;
            o->alt_count[i] = lists[i].n;
            o->flags[i] |= REF_FLAG_AMBIGUOUS;
            k += lists[i].n;
        }
        free(lists[i].v);
    }
    o->nalts = k;
    free(lists);
    return rc;
}

/* The pages of [p, p + bytes) made present in one call where the kernel can (Linux 5.14+), so
 * the first chunk does not trap on them one at a time (~10 us a page on this VM, against ~0.7 us
 * a page made present at once; a 4 KiB page's first touch still costs more there:
 * chunkbuf_block). Only a hint: pages it could not make present fault on first touch. */
static void prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    const uintptr_t pg = 4096;
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + bytes) & ~(pg - 1);
    if (p && b > a)
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

#define CB_ALIGN 64                     /* a ref_value per cache line, none split across two */
#define CB_HUGE ((size_t)2 << 20)       /* a transparent huge page */
#define CB_HUGE_FROM ((size_t)1 << 20)  /* blocks from here on are whole huge pages */
#define CB_ROUND(x) (((x) + CB_ALIGN - 1) & ~(size_t)(CB_ALIGN - 1))

static size_t chunkbuf_bytes(size_t n)
{
    return CB_ROUND(n * sizeof(ref_value)) + CB_ROUND(n) + CB_ROUND(n * sizeof(int64_t)) +
           CB_ROUND(n * sizeof(int32_t));
}

/* The chunk buffers' block of total bytes, *raw what to free. Fresh 4 KiB pages cost twice on
 * this VM (PVM: the guest's page tables are shadowed): made present (prefault) each page still
 * costs 5-19 us at its first touch, ~1.5-5.5 ms for avg-pool's three buffers (1.4 MB) in a
 * call whose malloc maps them afresh (the first call of a process), against ~0.15 ms for one
 * huge page made present. From CB_HUGE_FROM on the block is whole huge pages on a huge-page
 * boundary inside an allocation one huge page larger, which ref_big_alloc asks to be huge pages
 * (as grid_work_block does; up to 2 MiB more than the buffers, untouched beyond one page where
 * THP is off); smaller ones are 4 KiB pages made present. */
static char *chunkbuf_block(size_t total, void **raw)
{
    if (total < CB_HUGE_FROM) {
        *raw = malloc(total + CB_ALIGN);
        return *raw ? (char *)(((uintptr_t)*raw + CB_ALIGN - 1) & ~(uintptr_t)(CB_ALIGN - 1))
                    : NULL;
    }
    size_t span = (total + CB_HUGE - 1) & ~(CB_HUGE - 1);
    *raw = ref_big_alloc(span + CB_HUGE, 1, false);
    return *raw ? (char *)(((uintptr_t)*raw + CB_HUGE - 1) & ~(uintptr_t)(CB_HUGE - 1)) : NULL;
}

static void *carve(char **at, size_t bytes)
{
    void *p = *at;
    *at += CB_ROUND(bytes);
    return p;
}

int ref_chunkbufs_init(ref_chunkbuf *b, int count, int64_t cap)
{
    size_t n = cap > 0 ? (size_t)cap : 1, total = (size_t)count * chunkbuf_bytes(n);
    memset(b, 0, (size_t)count * sizeof *b);
    void *raw;
    char *at = chunkbuf_block(total, &raw);
    if (!at)
        return -1;
    prefault(at, total);
    for (int k = 0; k < count; k++) {
        ref_output *o = &b[k].o;
        b[k].cap = (int64_t)n;
        o->numel = (int64_t)n;
        /* v is not cleared: both ops write every field of every element */
        o->v = carve(&at, n * sizeof *o->v);
        o->flags = memset(carve(&at, n), 0, n);
        o->alt_first = memset(carve(&at, n * sizeof(int64_t)), 0xff, n * sizeof(int64_t)); /* -1 */
        o->alt_count = memset(carve(&at, n * sizeof(int32_t)), 0, n * sizeof(int32_t));
    }
    b[0].block = raw;
    return 0;
}

void ref_chunkbufs_free(ref_chunkbuf *b, int count)
{
    if (count <= 0)
        return;
    void *raw = b[0].block;
    for (int k = 0; k < count; k++) { /* the rest of each is the block's */
        free(b[k].o.alts);
        free(b[k].o.ival);
        free(b[k].o.plain_hi);
        memset(&b[k], 0, sizeof b[k]);
    }
    free(raw);
}

int ref_chunkbuf_init(ref_chunkbuf *b, int64_t cap)
{
    return ref_chunkbufs_init(b, 1, cap);
}

void ref_chunkbuf_start(ref_chunkbuf *b, int64_t numel)
{
    ref_output *o = &b->o;
    size_t n = (size_t)numel;
    o->numel = numel;
    memset(o->flags, 0, n * sizeof *o->flags);
    if (o->nalts) { /* only ref_output_set_alts writes them, and then counts some alternative */
        memset(o->alt_count, 0, (size_t)b->cap * sizeof *o->alt_count);
        memset(o->alt_first, 0xff, (size_t)b->cap * sizeof *o->alt_first); /* -1 */
    }
    free(o->alts);
    o->alts = NULL;
    o->nalts = 0;
    if (o->ival)
        memset(o->ival, 0, 2 * n * sizeof *o->ival);
}

double *ref_chunkbuf_ival(ref_chunkbuf *b)
{
    if (!b->o.ival)
        b->o.ival = ref_big_alloc((size_t)(2 * b->cap), sizeof *b->o.ival, true);
    return b->o.ival;
}

int ref_chunkbuf_plain_hi(ref_chunkbuf *b)
{
    if (!b->o.plain_hi)
        b->o.plain_hi = ref_big_alloc((size_t)b->cap, sizeof *b->o.plain_hi, false);
    return b->o.plain_hi ? 0 : -1;
}

void ref_plain_hi_of(const ref_value *v, const uint8_t *flags, int64_t n, float *ph)
{
    for (int64_t i = 0; i < n; i++) {
        double hi = v[i].hi;
        float f = (float)hi; /* ±inf past FLT_MAX, NaN from NaN: never equal to a finite hi */
        ph[i] = flags[i] == 0 && v[i].lo == 0 && (double)f == hi && fabsf(f) <= FLT_MAX ? f
                                                                                        : NAN;
    }
}

void ref_chunkbuf_free(ref_chunkbuf *b)
{
    ref_chunkbufs_free(b, 1);
}

int ref_emit(const ref_sink *s, int slot, int64_t first, const ref_chunkbuf *b)
{
    ref_chunk ch = {slot, first, &b->o};
    return b->o.numel > 0 ? s->fn(s->ctx, &ch) : 0;
}

int ref_collect_chunk(void *ctx, const ref_chunk *ch)
{
    ref_output *w = ((ref_output **)ctx)[ch->slot];
    const ref_output *c = ch->out;
    size_t n = (size_t)c->numel, at = (size_t)ch->first;
    memcpy(w->v + at, c->v, n * sizeof *c->v);
    memcpy(w->flags + at, c->flags, n * sizeof *c->flags);
    if (c->ival) {
        if (!w->ival && !(w->ival = ref_big_alloc((size_t)(2 * w->numel), sizeof *w->ival, true)))
            return -1;
        memcpy(w->ival + 2 * at, c->ival, 2 * n * sizeof *c->ival);
    }
    if (c->nalts == 0)
        return 0;
    ref_value *na = realloc(w->alts, (size_t)(w->nalts + c->nalts) * sizeof *na);
    if (!na)
        return -1;
    w->alts = na;
    memcpy(w->alts + w->nalts, c->alts, (size_t)c->nalts * sizeof *c->alts);
    for (size_t k = 0; k < n; k++)
        if (c->alt_first[k] >= 0) {
            w->alt_first[at + k] = w->nalts + c->alt_first[k];
            w->alt_count[at + k] = c->alt_count[k];
        }
    w->nalts += c->nalts;
    return 0;
}
