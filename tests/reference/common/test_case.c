/* ref_case: the plan of a case from its query alone, and its answers streamed in chunks that,
 * put together, are bit for bit the whole-output functions' answers (values, flags, every legal
 * alternative, intervals), for any chunk size; chunks come output by output in slot order, in
 * element order, a grid sampler input_grad chunk made of whole (n, c) planes. The grid's
 * coordinates 0.2 and -0.6 put nearest-mode points on a rounding tie the device may break
 * either way (x = 2.5·g + 2 = 2.5 + 2.8e-17 and 0.5 − 1.1e-16 with 5 input columns, facts §4), so
 * some elements carry alternatives. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"
#include "reference_grid_sampler2d_backward.h"

static void shape(ref_tensor_desc *t, int rank, const int64_t *d)
{
    t->present = true;
    t->dtype = REF_DT_FLOAT;
    t->format = REF_FMT_ND;
    t->rank = rank;
    memcpy(t->dims, d, (size_t)rank * sizeof *d);
}

/* gradOutput (n,c,h_out,w_out), input (n,c,h_in,w_in), grid (n,h_out,w_out,2), both outputs. */
static ref_status_query grid_query_sized(int interpolation, int padding, int64_t n, int64_t c,
                                         int64_t h_in, int64_t w_in, int64_t h_out, int64_t w_out)
{
    ref_status_query q = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = REF_PRODUCT_ASCEND910B,
                          .spec = REF_SPEC_DOC};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {interpolation}, 0};
    q.p[REF_GRID_PADDING_MODE] = (ref_param){true, 1, {padding}, 0};
    q.p[REF_GRID_ALIGN_CORNERS] = (ref_param){true, 1, {0}, 0};
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    shape(&q.t[0], 4, (int64_t[]){n, c, h_out, w_out});
    shape(&q.t[1], 4, (int64_t[]){n, c, h_in, w_in});
    shape(&q.t[2], 4, (int64_t[]){n, h_out, w_out, 2});
    shape(&q.t[3], 4, (int64_t[]){n, c, h_in, w_in});
    shape(&q.t[4], 4, (int64_t[]){n, h_out, w_out, 2});
    return q;
}

/* gradOutput (2,3,3,4), input (2,3,4,5), grid (2,3,4,2). */
static ref_status_query grid_query(int interpolation, int padding)
{
    return grid_query_sized(interpolation, padding, 2, 3, 4, 5, 3, 4);
}

/* self (n,c,h,w) → gradOutput (n,c,oh,ow): kernel 3, stride 2, padding 1, oh and ow by facts
 * §4 (floor((h + 2 − 3)/2) + 1). */
static ref_status_query avgpool_query_sized(int64_t n, int64_t c, int64_t h, int64_t w)
{
    int64_t oh = (h + 2 - 3) / 2 + 1, ow = (w + 2 - 3) / 2 + 1;
    ref_status_query q = {.op = REF_OP_AVGPOOL2D_BACKWARD, .product = REF_PRODUCT_ASCEND910B,
                          .spec = REF_SPEC_DOC};
    q.p[REF_AVGPOOL_CUBE_MATH_TYPE] = (ref_param){true, 1, {1}, 0};
    q.p[REF_AVGPOOL_CEIL_MODE] = (ref_param){true, 1, {0}, 0};
    q.p[REF_AVGPOOL_COUNT_INCLUDE_PAD] = (ref_param){true, 1, {0}, 0};
    q.p[REF_AVGPOOL_DIVISOR_OVERRIDE] = (ref_param){true, 1, {0}, 0};
    shape(&q.t[0], 4, (int64_t[]){n, c, oh, ow});
    shape(&q.t[1], 4, (int64_t[]){n, c, h, w});
    shape(&q.t[2], 4, (int64_t[]){n, c, h, w});
    for (int i = 0; i < 3; i++) q.t[i].format = REF_FMT_NCHW;
    q.p[REF_AVGPOOL_KERNEL_SIZE] = (ref_param){true, 2, {3, 3}, 0};
    q.p[REF_AVGPOOL_STRIDE] = (ref_param){true, 2, {2, 2}, 0};
    q.p[REF_AVGPOOL_PADDING] = (ref_param){true, 2, {1, 1}, 0};
    return q;
}

/* self (2,3,5,6) → gradOutput (2,3,3,3) (floor((5 + 2 − 3)/2) + 1 = 3, floor((6 + 2 − 3)/2) + 1
 * = 3). */
static ref_status_query avgpool_query(void)
{
    return avgpool_query_sized(2, 3, 5, 6);
}

/* Chunks gathered back into whole outputs, with the order checks. */
typedef struct {
    ref_output *out[REF_MAX_SLOTS];
    int last_slot;
    int64_t next;        /* the element the next chunk of last_slot must start at */
    int64_t max_elems;   /* largest chunk allowed */
    int chunks;
} gather;

static int gather_chunk(void *ctx, const ref_chunk *ch)
{
    gather *g = ctx;
    const ref_output *c = ch->out;
    if (ch->slot != g->last_slot) {
        assert_true(ch->slot > g->last_slot); /* outputs in slot order */
        g->last_slot = ch->slot;
        g->next = 0;
    }
    assert_int_equal(ch->first, g->next); /* elements in order, none left out */
    assert_true(c->numel > 0 && c->numel <= g->max_elems);
    g->next += c->numel;
    g->chunks++;
    ref_output *w = g->out[ch->slot];
    assert_non_null(w);
    for (int64_t k = 0; k < c->numel; k++) {
        w->v[ch->first + k] = c->v[k];
        w->flags[ch->first + k] = c->flags[k];
        w->alt_count[ch->first + k] = c->alt_first[k] >= 0 ? c->alt_count[k] : 0;
        for (int32_t i = 0; c->alt_first[k] >= 0 && i < c->alt_count[k]; i++)
            w->alts[(ch->first + k) * 64 + i] = c->alts[c->alt_first[k] + i];
        if (c->ival) memcpy(w->ival + 2 * (ch->first + k), c->ival + 2 * k, 2 * sizeof(double));
    }
    return 0;
}

/* A gathered output: per element its value, flags, up to 64 alternatives and interval. */
static void gathered_alloc(ref_output *o, int64_t numel)
{
    memset(o, 0, sizeof *o);
    o->numel = numel;
    o->v = calloc((size_t)numel, sizeof *o->v);
    o->flags = calloc((size_t)numel, 1);
    o->alt_count = calloc((size_t)numel, sizeof *o->alt_count);
    o->alts = calloc((size_t)numel * 64, sizeof *o->alts);
    o->ival = calloc((size_t)numel * 2, sizeof *o->ival);
}

static void gathered_free(ref_output *o)
{
    free(o->v);
    free(o->flags);
    free(o->alt_count);
    free(o->alts);
    free(o->ival);
}

/* Returns the number of alternatives seen. */
static int64_t assert_same(const ref_output *whole, const ref_output *got)
{
    assert_int_equal(whole->numel, got->numel);
    int64_t alts = 0;
    for (int64_t k = 0; k < whole->numel; k++) {
        assert_memory_equal(&whole->v[k], &got->v[k], sizeof got->v[k]);
        assert_int_equal(whole->flags[k], got->flags[k]);
        int32_t n = whole->alt_first[k] >= 0 ? whole->alt_count[k] : 0;
        assert_int_equal(n, got->alt_count[k]);
        for (int32_t i = 0; i < n; i++)
            assert_memory_equal(&whole->alts[whole->alt_first[k] + i], &got->alts[k * 64 + i],
                                sizeof(ref_value));
        alts += n;
        if (whole->flags[k] & REF_FLAG_INTERVAL)
            assert_memory_equal(whole->ival + 2 * k, got->ival + 2 * k, 2 * sizeof(double));
    }
    return alts;
}

static void fill(double *x, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (double)(float)((double)(seed >> 8) / (1u << 24) * 4 - 2);
    }
}

static int64_t grid_case(int interpolation, int padding, int64_t chunk_elems, int threads)
{
    ref_status_query q = grid_query(interpolation, padding);
    double go[72], in[120], grid[48];
    fill(go, 72, 1);
    fill(in, 120, 2);
    fill(grid, 48, 3);
    const double ties[] = {0.2, -0.6, 0.2, 0.3, -0.6, 0.7};
    memcpy(grid, ties, sizeof ties);
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    ref_case_answer plan, a;
    ref_case_request r = {.dtype = REF_DT_FLOAT};
    assert_int_equal(ref_case(&q, &r, &plan), 0);
    assert_int_equal(plan.status.status, REF_STATUS_SUCCESS);
    assert_true(plan.status.runs);
    assert_true(plan.computed[3] && plan.computed[4] && !plan.computed[2]);
    assert_int_equal(plan.numel[3], 120);
    assert_int_equal(plan.numel[4], 48);
    assert_string_equal(plan.path.name, ref_grid_path(REF_DT_FLOAT).name);
    assert_true(plan.work_bytes > 0);

    ref_grid_params p = {2, 3, 4, 5, 3, 4, (ref_interp)interpolation, (ref_padding)padding, false};
    ref_options opt = {.path = plan.path};
    ref_output wx, wg, gx, gg;
    assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, grid, &opt, &wx, &wg), 0);
    gathered_alloc(&gx, 120);
    gathered_alloc(&gg, 48);
    /* input_grad: whole planes of 20 elements; grid_grad: a batch's 24 */
    int64_t planes = chunk_elems / 20 < 1 ? 1 : chunk_elems / 20 > 3 ? 3 : chunk_elems / 20;
    gather g = {{NULL, NULL, NULL, &gx, &gg}, -1, 0, planes * 20 > 24 ? planes * 20 : 24, 0};
    r.inputs = inputs;
    r.chunk = gather_chunk;
    r.ctx = &g;
    r.chunk_elems = chunk_elems;
    r.threads = threads;
    assert_int_equal(ref_case(&q, &r, &a), 0);
    assert_int_equal(g.last_slot, 4);
    assert_int_equal(g.chunks, 2 * (int)((3 + planes - 1) / planes) + 2);
    int64_t alts = assert_same(&wx, &gx) + assert_same(&wg, &gg);
    ref_output_free(&wx);
    ref_output_free(&wg);
    gathered_free(&gx);
    gathered_free(&gg);
    return alts;
}

static void test_grid_chunks_are_the_whole_answers(void **state)
{
    (void)state;
    const int64_t sizes[] = {1, 20, 41, 60, 1 << 18};
    /* 0: one thread (so small); 2, 3: a team, the calling thread handing input_grad's chunks on
     * while the others compute the next in the second buffer */
    for (int threads = 0; threads <= 3; threads += threads ? 1 : 2)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            assert_true(grid_case(REF_INTERP_NEAREST, REF_PAD_ZEROS, sizes[i], threads) > 0);
            grid_case(REF_INTERP_BILINEAR, REF_PAD_REFLECTION, sizes[i], threads);
        }
}

/* Chunks of each slot in element order, slots in order, counted. */
typedef struct { int last_slot; int64_t next, elems[REF_MAX_SLOTS]; } order;

static int order_chunk(void *ctx, const ref_chunk *ch)
{
    order *o = ctx;
    if (ch->slot != o->last_slot) {
        assert_true(ch->slot > o->last_slot);
        o->last_slot = ch->slot;
        o->next = 0;
    }
    assert_int_equal(ch->first, o->next);
    o->next += ch->out->numel;
    o->elems[ch->slot] += ch->out->numel;
    return 0;
}

/* Both outputs of a grid whose grid_grad (2·363·363 = 263538 elements) is past the 2^18 that
 * ref_grid_stream keeps for one pass: one pass per output, still in slot order, every element. */
static void test_grid_big_grid_grad_in_slot_order(void **state)
{
    (void)state;
    ref_status_query q =
        grid_query_sized(REF_INTERP_BILINEAR, REF_PAD_ZEROS, 1, 1, 2, 2, 363, 363);
    int64_t npts = 363 * 363;
    double *go = malloc((size_t)npts * sizeof *go), *grid = malloc((size_t)npts * 2 * sizeof *grid);
    double in[4] = {1, -2, 0.5, 3};
    fill(go, (int)npts, 1);
    fill(grid, (int)(2 * npts), 2);
    for (int64_t i = 0; i < 2 * npts; i++)
        grid[i] /= 2; /* within [-1, 1] */
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    order o = {-1, 0, {0}};
    ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = order_chunk, .ctx = &o};
    ref_case_answer a;
    assert_int_equal(ref_case(&q, &r, &a), 0);
    assert_int_equal(o.last_slot, 4);
    assert_int_equal(o.elems[3], 4);
    assert_int_equal(o.elems[4], 2 * npts);
    free(go);
    free(grid);
}

static void test_avgpool_chunks_are_the_whole_answers(void **state)
{
    (void)state;
    ref_status_query q = avgpool_query();
    double go[54];
    fill(go, 54, 4);
    const double *inputs[REF_MAX_SLOTS] = {go};
    ref_case_request r = {.dtype = REF_DT_FLOAT};
    ref_case_answer plan;
    assert_int_equal(ref_case(&q, &r, &plan), 0);
    assert_int_equal(plan.status.status, REF_STATUS_SUCCESS);
    assert_true(plan.computed[2] && !plan.computed[3]);
    assert_int_equal(plan.numel[2], 180);
    ref_avgpool_params p = {2, 3, 5, 6, 3, 3, 3, 3, 2, 2, 1, 1, false, false, 0};
    ref_options opt = {.path = plan.path};
    ref_output whole;
    assert_int_equal(ref_avgpool2d_backward(&p, go, &opt, &whole), 0);
    const int64_t sizes[] = {1, 7, 179, 180, 1 << 18};
    for (size_t i = 0; i < 2 * sizeof sizes / sizeof sizes[0]; i++) {
        ref_output got;
        gathered_alloc(&got, 180);
        gather g = {{NULL, NULL, &got}, -1, 0, sizes[i % 5], 0};
        r.inputs = inputs;
        r.chunk = gather_chunk;
        r.ctx = &g;
        r.chunk_elems = sizes[i % 5];
        r.threads = i < 5 ? 0 : 2; /* 0: one thread, so small; 2: a team passing chunks on */
        ref_case_answer a;
        assert_int_equal(ref_case(&q, &r, &a), 0);
        /* whole rows of w = 6 when one fits the budget (reference.h), else the budget */
        int64_t per = sizes[i % 5] >= 6 ? sizes[i % 5] - sizes[i % 5] % 6 : sizes[i % 5];
        assert_int_equal(g.chunks, (int)((180 + per - 1) / per));
        assert_same(&whole, &got);
        gathered_free(&got);
    }
    ref_output_free(&whole);
}

/* A stream of avg-pool answers (self (N, C, H, W), 3x3 windows of stride 2, padding 1, the
 * output (N, C, OH, OW)) through `chunk` on 1 .. max_threads threads, reps times each: the
 * chunks (`chunks` of them, each at most max_elems) are the whole answers bitwise. */
typedef struct {
    int64_t n, c, h, w, oh, ow;
    int seed, max_threads, reps, chunks;
    int64_t chunk_elems, max_elems; /* chunk_elems 0: the library's default */
    int (*chunk)(void *, const ref_chunk *);
} avgpool_stream;

static void avgpool_stream_is_whole(const avgpool_stream *s)
{
    int64_t ng = s->n * s->c * s->oh * s->ow, ni = s->n * s->c * s->h * s->w;
    ref_status_query q = avgpool_query_sized(s->n, s->c, s->h, s->w);
    double *go = malloc((size_t)ng * sizeof *go);
    fill(go, (int)ng, (unsigned)s->seed);
    const double *inputs[REF_MAX_SLOTS] = {go};
    ref_avgpool_params p = {s->n, s->c, s->h, s->w, s->oh, s->ow, 3, 3, 2, 2, 1, 1,
                            false, false, 0};
    ref_case_request r = {.dtype = REF_DT_FLOAT};
    ref_case_answer plan;
    assert_int_equal(ref_case(&q, &r, &plan), 0);
    ref_options opt = {.path = plan.path, .threads = 1};
    ref_output whole;
    assert_int_equal(ref_avgpool2d_backward(&p, go, &opt, &whole), 0);
    for (int threads = 1; threads <= s->max_threads; threads++)
        for (int rep = 0; rep < s->reps; rep++) {
            ref_output got;
            gathered_alloc(&got, ni);
            gather g = {{NULL, NULL, &got}, -1, 0, s->max_elems, 0};
            r = (ref_case_request){.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = s->chunk,
                                   .ctx = &g, .chunk_elems = s->chunk_elems, .threads = threads};
            ref_case_answer a;
            assert_int_equal(ref_case(&q, &r, &a), 0);
            assert_int_equal(g.chunks, s->chunks);
            assert_same(&whole, &got);
            gathered_free(&got);
        }
    ref_output_free(&whole);
    free(go);
}

/* A team streaming through the whole ring: self (4,3,40,30), planes of 1200 elements in blocks
 * of whole rows (1020 and 180: 34 rows of 30 fit the 1024 of a block), chunks of two planes
 * (chunk_elems 2500 keeps whole planes), so 6 chunks of three blocks go through the three
 * buffers twice and the threads share each chunk. The chunks, whatever the thread count and
 * however the threads meet (each count run several times), are the whole answers bitwise. */
static void test_avgpool_team_chunks_are_the_whole_answers(void **state)
{
    (void)state;
    avgpool_stream s = {4, 3, 40, 30, 20, 15, .seed = 5, .max_threads = 4, .reps = 8,
                        .chunks = 6, .chunk_elems = 2500, .max_elems = 2400,
                        .chunk = gather_chunk};
    avgpool_stream_is_whole(&s);
}

/* The thread that called ref_case: every chunk is handed on from it (reference.h), whichever
 * thread of the team computed it. */
static pthread_t stream_caller;

/* Elsewhere the stream stops (ref_case then fails: an assertion off the test's thread would
 * not report). */
static int gather_on_caller(void *ctx, const ref_chunk *ch)
{
    return pthread_equal(pthread_self(), stream_caller) ? gather_chunk(ctx, ch) : 1;
}

/* The planes above in chunks of 10 rows (48 chunks through the three buffers), on 1 and 2
 * threads, 8 times each: each chunk reaches the callback on the calling thread. */
static void test_avgpool_chunks_handed_on_by_the_caller(void **state)
{
    (void)state;
    stream_caller = pthread_self();
    avgpool_stream s = {4, 3, 40, 30, 20, 15, .seed = 7, .max_threads = 2, .reps = 8,
                        .chunks = 48, .chunk_elems = 300, .max_elems = 300,
                        .chunk = gather_on_caller};
    avgpool_stream_is_whole(&s);
}

/* A chunk's arrays as ref_chunkbufs_init carves them: every ref_value on a cache line of its
 * own, none of the four arrays overlapping another, no alternative (index -1, count 0) where
 * the element is not ambiguous; then gathered. */
static int gather_carved_chunk(void *ctx, const ref_chunk *ch)
{
    const ref_output *c = ch->out;
    assert_int_equal((uintptr_t)c->v % 64, 0);
    const char *v = (const char *)c->v, *v_end = v + c->numel * (int64_t)sizeof *c->v;
    const char *parts[3] = {(const char *)c->flags, (const char *)c->alt_first,
                            (const char *)c->alt_count};
    const size_t bytes[3] = {1, sizeof *c->alt_first, sizeof *c->alt_count};
    for (int i = 0; i < 3; i++) {
        const char *end = parts[i] + c->numel * (int64_t)bytes[i];
        assert_true(end <= v || parts[i] >= v_end);
        for (int j = i + 1; j < 3; j++)
            assert_true(end <= parts[j] || parts[i] >= parts[j] + c->numel * (int64_t)bytes[j]);
    }
    for (int64_t k = 0; k < c->numel; k++)
        if (!(c->flags[k] & REF_FLAG_AMBIGUOUS)) {
            assert_int_equal(c->alt_first[k], -1);
            assert_int_equal(c->alt_count[k], 0);
        }
    return gather_chunk(ctx, ch);
}

/* The bench's planes (self (1,8,56,56)) in the library's default chunks (two planes, 6272
 * elements): the three buffers (1.4 MB) are carved from one block of whole huge pages
 * (reference/common/output.c), four chunks pass through them, and each is the whole answers'
 * bitwise, on one thread and on a team. */
static void test_avgpool_huge_block_chunks_are_the_whole_answers(void **state)
{
    (void)state;
    avgpool_stream s = {1, 8, 56, 56, 28, 28, .seed = 6, .max_threads = 2, .reps = 3,
                        .chunks = 4, .max_elems = 2 * 56 * 56, .chunk = gather_carved_chunk};
    avgpool_stream_is_whole(&s);
}

/* ---- a caller that finds the library's team busy ----
 * ref_team_run lets one caller at a time have its helpers; another computes alone, in a pipe
 * planned for a team (each thread's share of a chunk's blocks first, avgpool2d_backward.c's
 * pipe_order). It must still compute every block: the first caller below holds the team
 * inside its first chunk's callback while the second streams the bench's planes (4 chunks of 7
 * blocks) on "2 threads". */
static int hold_inside, hold_release;

static void nap_ms(void) { nanosleep(&(struct timespec){0, 1000000}, NULL); }

static int hold_chunk(void *ctx, const ref_chunk *ch)
{
    (void)ctx;
    (void)ch;
    __atomic_store_n(&hold_inside, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&hold_release, __ATOMIC_ACQUIRE))
        nap_ms();
    return 0;
}

/* Off the test's thread: no assertions, a mismatch stops the stream instead. */
static int keep_chunk(void *ctx, const ref_chunk *ch)
{
    ref_output *w = ctx;
    memcpy(w->v + ch->first, ch->out->v, (size_t)ch->out->numel * sizeof *w->v);
    memcpy(w->flags + ch->first, ch->out->flags, (size_t)ch->out->numel);
    return ch->out->nalts != 0; /* none in these planes */
}

typedef struct {
    const ref_status_query *q;
    const double *go;
    int (*chunk)(void *, const ref_chunk *);
    ref_output *got;
    int rc, done;
} streamer;

static void *stream_on_two(void *arg)
{
    streamer *s = arg;
    const double *inputs[REF_MAX_SLOTS] = {s->go};
    ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = s->chunk,
                          .ctx = s->got, .threads = 2};
    ref_case_answer a;
    s->rc = ref_case(s->q, &r, &a);
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_avgpool_caller_without_the_team_computes_every_block(void **state)
{
    (void)state;
    const int64_t ng = 8 * 28 * 28, ni = 8 * 56 * 56;
    ref_status_query q = avgpool_query_sized(1, 8, 56, 56);
    double *go = malloc((size_t)ng * sizeof *go);
    fill(go, (int)ng, 9);
    ref_avgpool_params p = {1, 8, 56, 56, 28, 28, 3, 3, 2, 2, 1, 1, false, false, 0};
    ref_case_answer plan;
    assert_int_equal(ref_case(&q, &(ref_case_request){.dtype = REF_DT_FLOAT}, &plan), 0);
    ref_options opt = {.path = plan.path, .threads = 1};
    ref_output whole, got = {.numel = ni, .v = calloc((size_t)ni, sizeof(ref_value)),
                             .flags = calloc((size_t)ni, 1)};
    assert_int_equal(ref_avgpool2d_backward(&p, go, &opt, &whole), 0);
    streamer holder = {&q, go, hold_chunk, NULL, 0, 0}, lone = {&q, go, keep_chunk, &got, 0, 0};
    pthread_t th[2];
    assert_int_equal(pthread_create(&th[0], NULL, stream_on_two, &holder), 0);
    while (!__atomic_load_n(&hold_inside, __ATOMIC_ACQUIRE))
        nap_ms();
    assert_int_equal(pthread_create(&th[1], NULL, stream_on_two, &lone), 0);
    /* blocks left to a helper it does not have: the lone caller would wait for ever */
    for (int ms = 0; ms < 20000 && !__atomic_load_n(&lone.done, __ATOMIC_ACQUIRE); ms++)
        nap_ms();
    int finished = __atomic_load_n(&lone.done, __ATOMIC_ACQUIRE);
    __atomic_store_n(&hold_release, 1, __ATOMIC_RELEASE);
    if (!finished)
        fail_msg("a caller without the team's helpers did not finish in 20 s");
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    assert_int_equal(holder.rc, 0);
    assert_int_equal(lone.rc, 0);
    assert_memory_equal(got.v, whole.v, (size_t)ni * sizeof(ref_value));
    assert_memory_equal(got.flags, whole.flags, (size_t)ni);
    free(got.v);
    free(got.flags);
    ref_output_free(&whole);
    free(go);
}

/* What the plain_hi test's chunks held: elements by kind (plain_hi NaN for a flag, NaN for
 * lo ≠ 0 alone, 0, another exact value), and chunks without plain_hi. */
typedef struct { int64_t flagged, inexact, zero, exact, bare; } plain_kinds;

/* Each element's plain_hi is reference.h's definition, bit for bit: v.hi where the element has
 * no flag, lo 0 and a hi that is a finite float, else NaN. */
static int check_plain_hi(void *ctx, const ref_chunk *ch)
{
    plain_kinds *k = ctx;
    const ref_output *c = ch->out;
    if (!c->plain_hi) {
        k->bare++;
        return 0;
    }
    for (int64_t i = 0; i < c->numel; i++) {
        const ref_value *v = &c->v[i];
        bool plain = c->flags[i] == 0 && v->lo == 0 && isfinite(v->hi) &&
                     (double)(float)v->hi == v->hi;
        if (!plain) {
            assert_true(isnan(c->plain_hi[i]));
            ++*(c->flags[i] ? &k->flagged : &k->inexact);
            continue;
        }
        float f = (float)v->hi;
        assert_memory_equal(&c->plain_hi[i], &f, sizeof f);
        ++*(v->hi == 0 ? &k->zero : &k->exact);
    }
    return 0;
}

/* An avg-pool query: self (d0, d1, d2, d3), gradOutput (d0, d1, d4, d5), windows kh x kw at
 * strides sh x sw, no padding, divisorOverride div */
static ref_status_query sparse_query(const int64_t d[6], int64_t kh, int64_t kw, int64_t sh,
                                     int64_t sw, int64_t div)
{
    ref_status_query q = avgpool_query_sized(d[0], d[1], d[2], d[3]);
    shape(&q.t[0], 4, (int64_t[]){d[0], d[1], d[4], d[5]});
    q.p[REF_AVGPOOL_KERNEL_SIZE] = (ref_param){true, 2, {kh, kw}, 0};
    q.p[REF_AVGPOOL_STRIDE] = (ref_param){true, 2, {sh, sw}, 0};
    q.p[REF_AVGPOOL_PADDING] = (ref_param){true, 2, {0, 0}, 0};
    q.p[REF_AVGPOOL_DIVISOR_OVERRIDE] = (ref_param){true, 1, {div}, 0};
    return q;
}

/* The kinds of q's streamed answers (gradOutput go) on `threads` threads, chunks of chunk_elems
 * (0: the default), each chunk's plain_hi checked (check_plain_hi) */
static plain_kinds kinds_of(const ref_status_query *q, const double *go, int64_t chunk_elems,
                            int threads)
{
    plain_kinds k = {0};
    const double *inputs[REF_MAX_SLOTS] = {go};
    ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = check_plain_hi,
                          .ctx = &k, .chunk_elems = chunk_elems, .threads = threads};
    ref_case_answer a;
    assert_int_equal(ref_case(q, &r, &a), 0);
    return k;
}

/* Avg-pool's chunks carry plain_hi (reference.h) that is their values' own where windows leave
 * a third of the elements or more uncovered (avgpool2d_backward.c wants_plain_hi), and none
 * where they cover every element. self (2, 3, 14, 11)
 * under 2x2 windows of stride 3 and divisor 3: gradOutput (2, 3, 5, 4); rows 2, 5, 8 and 11 and
 * columns 2, 5 and 8 have no window (answers 0, 74 a plane; the rows among them are made
 * without reading v), the other 80 elements of a plane one window each: g/3 for gradOutput g
 * = 3·(i mod 7) where i mod 3 = 0, else (i mod 5) + 1/2. By hand, of the 120 windows: 6 give
 * 0 (i mod 21 = 0), 66 a float exactly (3·m/3; 1.5/3 and 4.5/3), 47 no float (0.5/3, 2.5/3,
 * 3.5/3: lo ≠ 0; i = 7 is 3 + 3·2^-29 instead, whose 1 + 2^-29 is a double but no float), and
 * i = 5 is +inf (a non-finite answer, flagged), 4 elements each.
 * Chunks of one plane (154 elements): six through the three buffers, on one and two threads. */
static void test_avgpool_chunks_carry_plain_hi(void **state)
{
    (void)state;
    ref_status_query q = sparse_query((const int64_t[6]){2, 3, 14, 11, 5, 4}, 2, 2, 3, 3, 3);
    double go[252]; /* 120 for these windows, 252 for the covering ones below */
    for (int i = 0; i < 252; i++) go[i] = i % 3 == 0 ? 3.0 * (i % 7) : i % 5 + 0.5;
    go[5] = INFINITY;
    go[7] = 3 + 3 * 0x1p-29; /* /3: 1 + 2^-29, one double (lo 0) but no float: NaN */
    for (int threads = 1; threads <= 2; threads++)
        for (int rep = 0; rep < 4; rep++) {
            plain_kinds k = kinds_of(&q, go, 154, threads);
            assert_int_equal(k.bare, 0);
            assert_int_equal(k.flagged, 4);
            assert_int_equal(k.zero, 6 * 74 + 6 * 4);
            assert_int_equal(k.exact, 66 * 4);
            assert_int_equal(k.inexact, 47 * 4);
        }
    /* Overlapping windows, a third of the columns: self (1, 1, 9, 9), windows 3x1 at strides
     * 2x3, divisor 1, gradOutput (1, 1, 4, 3) 1024 in even rows and 2^-20 in odd ones. Rows 2, 4
     * and 6 lie in two windows: their covered elements are 1024 + 2^-20 (9: one double, no
     * float, NaN); the other covered ones one gradOutput value (18 floats); 54 uncovered. */
    q = sparse_query((const int64_t[6]){1, 1, 9, 9, 4, 3}, 3, 1, 2, 3, 1);
    double g1[12];
    for (int i = 0; i < 12; i++) g1[i] = (i / 3) % 2 ? 0x1p-20 : 1024;
    for (int threads = 1; threads <= 2; threads++) {
        plain_kinds k = kinds_of(&q, g1, 0, threads);
        assert_int_equal(k.bare, 0);
        assert_int_equal(k.zero, 54);
        assert_int_equal(k.exact, 18);
        assert_int_equal(k.inexact, 9);
        assert_int_equal(k.flagged, 0);
    }
    /* 3x3 windows at stride 2 with padding 1 cover every element: the chunks go without */
    q = avgpool_query_sized(2, 3, 14, 11); /* gradOutput (2, 3, 7, 6) */
    plain_kinds k = kinds_of(&q, go, 154, 2);
    assert_int_equal(k.bare, 6);
    assert_int_equal(k.zero + k.exact + k.inexact + k.flagged, 0);
}

/* Without inputs the plan alone: no chunk. A callback's non-zero return stops the stream and is
 * what ref_case returns. */
static int stop(void *ctx, const ref_chunk *ch)
{
    (void)ch;
    ++*(int *)ctx;
    return 7;
}

static void test_plan_alone_and_a_stopped_stream(void **state)
{
    (void)state;
    ref_status_query q = avgpool_query();
    double go[54] = {0};
    const double *inputs[REF_MAX_SLOTS] = {go};
    int calls = 0;
    ref_case_request r = {.dtype = REF_DT_FLOAT, .chunk = stop, .ctx = &calls, .chunk_elems = 7};
    ref_case_answer a;
    assert_int_equal(ref_case(&q, &r, &a), 0);
    assert_int_equal(calls, 0);
    r.inputs = inputs;
    assert_int_equal(ref_case(&q, &r, &a), 7);
    assert_int_equal(calls, 1);
    r.threads = 2; /* a team: the other thread leaves too, no chunk handed on after */
    assert_int_equal(ref_case(&q, &r, &a), 7);
    assert_int_equal(calls, 2);
}

/* A callback that stops the stream at its `at`-th chunk (returning 7): no chunk after it. */
typedef struct { int calls, at; } stop_at;

static int stop_at_chunk(void *ctx, const ref_chunk *ch)
{
    (void)ch;
    stop_at *s = ctx;
    return ++s->calls == s->at ? 7 : 0;
}

/* The grid sampler's team stops where the callback does, whichever chunk that is: input_grad's
 * six (three planes of two batches, one a chunk: the first of a batch, one while the other
 * buffer is computed, the last of a batch) or grid_grad's two after them. */
static void test_grid_stopped_stream(void **state)
{
    (void)state;
    ref_status_query q = grid_query(REF_INTERP_BILINEAR, REF_PAD_REFLECTION);
    double go[72], in[120], grid[48];
    fill(go, 72, 1);
    fill(in, 120, 2);
    fill(grid, 48, 3);
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    for (int threads = 1; threads <= 3; threads++)
        for (int at = 1; at <= 8; at++) {
            stop_at s = {0, at};
            ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = stop_at_chunk,
                                  .ctx = &s, .chunk_elems = 20, .threads = threads};
            ref_case_answer a;
            assert_int_equal(ref_case(&q, &r, &a), 7);
            assert_int_equal(s.calls, at);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_chunks_are_the_whole_answers),
        cmocka_unit_test(test_grid_big_grid_grad_in_slot_order),
        cmocka_unit_test(test_grid_stopped_stream),
        cmocka_unit_test(test_avgpool_chunks_are_the_whole_answers),
        cmocka_unit_test(test_avgpool_team_chunks_are_the_whole_answers),
        cmocka_unit_test(test_avgpool_chunks_handed_on_by_the_caller),
        cmocka_unit_test(test_avgpool_huge_block_chunks_are_the_whole_answers),
        cmocka_unit_test(test_avgpool_caller_without_the_team_computes_every_block),
        cmocka_unit_test(test_avgpool_chunks_carry_plain_hi),
        cmocka_unit_test(test_plan_alone_and_a_stopped_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
