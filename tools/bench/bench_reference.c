/* Driver of tools/bench-reference: one process times one op's reference, pure MPFR (force_mpfr)
 * and the emulated FP32 kernel (when built with -DBENCH_EMU), on the shapes of tools/bench-kernels;
 * tools/bench/bench_reference_table.py pools the processes' lines.
 * The reference is timed as the harness calls it: one `ref_case` call that streams the answers in
 * chunks (BENCH_CHUNK elements, default the library's) to a callback that reads each chunk's
 * flags and drops it, as the judge does. "cold" is the process's first call (fresh pages, MPFR
 * and OpenMP start-up), "warm" a repeated call. The kernel is timed warm (after a warm-up, both
 * phases, device buffers made once), like tools/bench-kernels. Warm reference calls alternate
 * with kernel calls, so each pair sees the same machine load. A process started with "kcold"
 * times only the kernel's first call instead (its OpenMP threads, workspace and output pages
 * new too), the peer of the reference's cold call. Pure MPFR runs through the
 * whole-output function on a batch subset and is reported per element (per-element work). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"
#include "reference_grid_sampler2d_backward.h"

#ifdef BENCH_EMU
#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#endif

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double *rand_f32(int64_t n, double lo, double hi)
{
    double *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
        x[i] = ref_round_to(lo + (hi - lo) * urand(), REF_DT_FLOAT);
    return x;
}

static const ref_avgpool_params AP = {.n = 32, .c = 64, .h = 56, .w = 56, .oh = 28, .ow = 28,
                                      .kh = 3, .kw = 3, .sh = 2, .sw = 2, .ph = 1, .pw = 1,
                                      .count_include_pad = true};
static const ref_grid_params GP = {.n = 8, .c = 32, .h_in = 64, .w_in = 64, .h_out = 64,
                                   .w_out = 64, .interpolation = REF_INTERP_BILINEAR,
                                   .padding = REF_PAD_ZEROS};
static double *ap_go, *g_go, *g_in, *g_grid;

/* The ops a process may time: avg-pool, grid bilinear (the documents' contract) and grid
 * bicubic (the vendor's release 9.1, the first with it, on device and reference alike; on 2 of
 * the 8 batches, as its reference takes ~60 times bilinear's). */
enum { OP_AVGPOOL, OP_GRID, OP_BICUBIC, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"avgpool", "grid", "bicubic"};

static ref_grid_params grid_params(int op)
{
    ref_grid_params p = GP;
    if (op == OP_BICUBIC) {
        p.interpolation = REF_INTERP_BICUBIC;
        p.n = 2;
    }
    return p;
}

static void shape(ref_tensor_desc *t, const int64_t d[4])
{
    *t = (ref_tensor_desc){.present = true, .dtype = REF_DT_FLOAT, .format = REF_FMT_NCHW,
                           .rank = 4};
    for (int i = 0; i < 4; i++)
        t->dims[i] = d[i];
}

/* The status query of the bench's call on batch n: what the harness derives from a case. */
static ref_status_query query(int op, int64_t n)
{
    ref_status_query q = {.product = REF_PRODUCT_ASCEND910B,
                          .spec = op == OP_BICUBIC ? REF_SPEC_VENDOR_91 : REF_SPEC_DOC};
    if (op == OP_AVGPOOL) {
        q.op = REF_OP_AVGPOOL2D_BACKWARD;
        shape(&q.t[0], (int64_t[]){n, AP.c, AP.oh, AP.ow});
        shape(&q.t[1], (int64_t[]){n, AP.c, AP.h, AP.w});
        shape(&q.t[2], (int64_t[]){n, AP.c, AP.h, AP.w});
        q.p[REF_AVGPOOL_KERNEL_SIZE] = (ref_param){true, 2, {AP.kh, AP.kw}, 0};
        q.p[REF_AVGPOOL_STRIDE] = (ref_param){true, 2, {AP.sh, AP.sw}, 0};
        q.p[REF_AVGPOOL_PADDING] = (ref_param){true, 2, {AP.ph, AP.pw}, 0};
        q.p[REF_AVGPOOL_COUNT_INCLUDE_PAD] = (ref_param){true, 1, {AP.count_include_pad}, 0};
        return q;
    }
    q.op = REF_OP_GRID_SAMPLER2D_BACKWARD;
    shape(&q.t[0], (int64_t[]){n, GP.c, GP.h_out, GP.w_out});
    shape(&q.t[1], (int64_t[]){n, GP.c, GP.h_in, GP.w_in});
    shape(&q.t[2], (int64_t[]){n, GP.h_out, GP.w_out, 2});
    shape(&q.t[3], (int64_t[]){n, GP.c, GP.h_in, GP.w_in});
    shape(&q.t[4], (int64_t[]){n, GP.h_out, GP.w_out, 2});
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {grid_params(op).interpolation}, 0};
    return q;
}

/* The judge's stand-in: reads every element's flags (so the chunk is consumed), drops it.
 * Eight flags a load into a local: summing bytes into *acc (a char type may alias it) stored
 * and reloaded the sum per flag, a store-forwarding chain that cost 0.25-0.4 of avg-pool's
 * kernel call and counted as the reference's time (the judge's own scan is its stage's). */
static int consume(void *ctx, const ref_chunk *ch)
{
    const uint8_t *f = ch->out->flags;
    int64_t n = ch->out->numel, i = 0;
    uint64_t any = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, f + i, sizeof w);
        any |= w;
    }
    for (; i < n; i++)
        any |= f[i];
    *(unsigned *)ctx += (unsigned)(any | any >> 32) + (unsigned)ch->out->nalts;
    return 0;
}

static int64_t chunk_elems; /* BENCH_CHUNK, 0: the library's default */

/* Seconds of one streamed reference call of op on batch n; *elems its output elements. */
static double ref_stream(int op, int64_t n, int64_t *elems)
{
    ref_status_query q = query(op, n);
    const double *in[REF_MAX_SLOTS] = {op == OP_AVGPOOL ? ap_go : g_go, g_in, g_grid};
    unsigned acc = 0;
    ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = in, .chunk = consume, .ctx = &acc,
                          .chunk_elems = chunk_elems};
    ref_case_answer a;
    double t0 = now();
    if (ref_case(&q, &r, &a) != 0 || !a.status.runs)
        exit(1);
    double dt = now() - t0;
    *elems = 0;
    for (int s = 0; s < REF_MAX_SLOTS; s++)
        *elems += a.computed[s] ? a.numel[s] : 0;
    return dt;
}

/* Seconds of pure MPFR (whole-output function, force_mpfr) on batch n. */
static double ref_mpfr(int op, int64_t n, int64_t *elems)
{
    ref_options o = {.force_mpfr = true, .path = ref_grid_path(REF_DT_FLOAT)};
    ref_output a = {0}, b = {0};
    int rc;
    double t0 = now();
    if (op == OP_AVGPOOL) {
        ref_avgpool_params p = AP;
        p.n = n;
        o.path = ref_avgpool_path(REF_PRODUCT_ASCEND910B, &p, REF_DT_FLOAT, 0);
        rc = ref_avgpool2d_backward(&p, ap_go, &o, &a);
    } else {
        ref_grid_params p = grid_params(op);
        p.n = n;
        rc = ref_grid_sampler2d_backward(&p, g_go, g_in, g_grid, &o, &a, &b);
    }
    double dt = now() - t0;
    if (rc != 0)
        exit(1);
    *elems = a.numel + b.numel;
    ref_output_free(&a);
    ref_output_free(&b);
    return dt;
}

#ifdef BENCH_EMU
#define CHECK(x)                                                                               \
    do {                                                                                       \
        if ((x) != 0) {                                                                        \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                     \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static aclTensor *dev_tensor(const double *v, const int64_t *dims, void **dev)
{
    int64_t n = dims[0] * dims[1] * dims[2] * dims[3];
    int64_t st[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
    float *h = malloc((size_t)n * sizeof *h);
    for (int64_t i = 0; i < n; i++)
        h[i] = v ? (float)v[i] : 0.0f;
    size_t bytes = (size_t)n * sizeof(float);
    CHECK(aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(*dev, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    free(h);
    return aclCreateTensor(dims, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, dims, 4, *dev);
}

/* The kernel's tensors of the op, made once per process. */
typedef struct {
    int op;
    aclrtStream s;
    void *d[5];
    aclTensor *t[5];
    aclIntArray *k, *st, *pd;
    aclBoolArray *m;
} kctx;

static void kernel_setup(kctx *K, int op, aclrtStream s)
{
    const int64_t ap_go_d[4] = {32, 64, 28, 28}, ap_in_d[4] = {32, 64, 56, 56};
    const int64_t gn = grid_params(op).n;
    const int64_t g_d[4] = {gn, 32, 64, 64}, g_grid_d[4] = {gn, 64, 64, 2};
    const int64_t three = 3, two = 2, one = 1;
    const bool mask[2] = {true, true};
    *K = (kctx){.op = op, .s = s};
    K->k = aclCreateIntArray(&three, 1);
    K->st = aclCreateIntArray(&two, 1);
    K->pd = aclCreateIntArray(&one, 1);
    K->m = aclCreateBoolArray(mask, 2);
    if (op == OP_AVGPOOL) {
        K->t[0] = dev_tensor(ap_go, ap_go_d, &K->d[0]);
        K->t[1] = dev_tensor(NULL, ap_in_d, &K->d[1]);
        K->t[2] = dev_tensor(NULL, ap_in_d, &K->d[2]);
    } else {
        K->t[0] = dev_tensor(g_go, g_d, &K->d[0]);
        K->t[1] = dev_tensor(g_in, g_d, &K->d[1]);
        K->t[2] = dev_tensor(g_grid, g_grid_d, &K->d[2]);
        K->t[3] = dev_tensor(NULL, g_d, &K->d[3]);
        K->t[4] = dev_tensor(NULL, g_grid_d, &K->d[4]);
    }
}

/* Seconds of one kernel call (both phases); *cpu its CPU seconds, all threads. */
static double kernel_time(const kctx *K, double *cpu)
{
    double t0 = now(), c0 = cpu_now();
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclTensor *const *t = K->t;
    if (K->op == OP_AVGPOOL)
        CHECK(aclnnAvgPool2dBackwardGetWorkspaceSize(t[0], t[1], K->k, K->st, K->pd, false, true,
                                                     0, 0, t[2], &ws, &ex));
    else
        CHECK(aclnnGridSampler2DBackwardGetWorkspaceSize(t[0], t[1], t[2],
                                                         grid_params(K->op).interpolation, 0,
                                                         false, K->m, t[3], t[4], &ws, &ex));
    void *w = NULL;
    if (ws > 0)
        CHECK(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    if (K->op == OP_AVGPOOL)
        CHECK(aclnnAvgPool2dBackward(w, ws, ex, K->s));
    else
        CHECK(aclnnGridSampler2DBackward(w, ws, ex, K->s));
    CHECK(aclrtSynchronizeStream(K->s));
    double dt = now() - t0;
    *cpu = cpu_now() - c0;
    if (w)
        aclrtFree(w);
    return dt;
}

static void kernel_teardown(kctx *K)
{
    for (int i = 0; i < 5; i++)
        if (K->t[i]) {
            aclDestroyTensor(K->t[i]);
            aclrtFree(K->d[i]);
        }
    aclDestroyIntArray(K->k);
    aclDestroyIntArray(K->st);
    aclDestroyIntArray(K->pd);
    aclDestroyBoolArray(K->m);
}
#endif

#ifdef BENCH_EMU
/* A process of its own for the kernel's first call: "kcold <op> <s>". */
static void kernel_cold(int op, void *stream)
{
    kctx K;
    double kc;
    kernel_setup(&K, op, stream);
    printf("kcold %s %.6f\n", op_names[op], kernel_time(&K, &kc));
    kernel_teardown(&K);
}
#endif

/* One process, one op: the reference's first (cold) call on fresh memory, a warm-up call of
 * each, then PAIRS pairs of a kernel call and a warm reference call alternating, so load drift on a shared machine hits
 * both sides of a pair; with mpfr_n > 0 also pure MPFR on batch mpfr_n, warm. Lines:
 *   fast <op> <elems> <cold s> ; pair <op> <kernel s> <kernel cpu s> <ref s> <ref cpu s>
 *   mpfr <op> <elems> <s> <cpu s> */
#define PAIRS 3

static void run_op(int op, int64_t mpfr_n, void *stream)
{
    int64_t n = op == OP_AVGPOOL ? AP.n : grid_params(op).n, e;
    const char *name = op_names[op];
    double cold = ref_stream(op, n, &e);
    printf("fast %s %lld %.6f\n", name, (long long)e, cold);
#ifdef BENCH_EMU
    kctx K;
    double kc;
    kernel_setup(&K, op, stream);
    (void)kernel_time(&K, &kc); /* warm-up */
#endif
    /* The reference's warm-up too: each pair's kernel call then follows a reference call and
     * its reference call a kernel call, as in every later pair. Without it the first pair's
     * kernel ran on the data its warm-up had just left in cache and its reference call was
     * the one whose buffers malloc takes from fresh pages (grid: 5.4-6.1 against 3.2-4.2 in
     * the pairs after it, a third of the samples and so the p90). */
    (void)ref_stream(op, n, &e);
    for (int i = 0; i < PAIRS; i++) {
        double kc = 0, kt = 0;
#ifdef BENCH_EMU
        kt = kernel_time(&K, &kc);
#endif
        double c0 = cpu_now(), t = ref_stream(op, n, &e);
        printf("pair %s %.6f %.6f %.6f %.6f\n", name, kt, kc, t, cpu_now() - c0);
    }
#ifdef BENCH_EMU
    kernel_teardown(&K);
#endif
    (void)stream;
    if (mpfr_n > 0) {
        (void)ref_mpfr(op, mpfr_n, &e);
        double c0 = cpu_now(), t = ref_mpfr(op, mpfr_n, &e);
        printf("mpfr %s %lld %.6f %.6f\n", name, (long long)e, t, cpu_now() - c0);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_reference avgpool|grid|bicubic [mpfr_batch | kcold]\n");
        return 2;
    }
    int op = 0;
    while (op < OP_COUNT && strcmp(argv[1], op_names[op]) != 0)
        op++;
    if (op == OP_COUNT) {
        fprintf(stderr, "bench_reference: unknown op '%s'\n", argv[1]);
        return 2;
    }
    if (op == OP_BICUBIC)
        setenv("ACLNN_EMU_SPEC", "vendor@9.1", 1); /* the device's release with bicubic */
    bool kcold = argc > 2 && strcmp(argv[2], "kcold") == 0;
    int64_t mpfr_n = argc > 2 && !kcold ? atoll(argv[2]) : 0;
    const char *chunk = getenv("BENCH_CHUNK");
    chunk_elems = chunk ? atoll(chunk) : 0;
    ap_go = rand_f32(AP.n * AP.c * AP.oh * AP.ow, -1, 1);
    int64_t ng = GP.n * GP.c * GP.h_in * GP.w_in;
    g_go = rand_f32(ng, -1, 1);
    g_in = rand_f32(ng, -1, 1);
    g_grid = rand_f32(GP.n * GP.h_out * GP.w_out * 2, -1.05, 1.05);
    void *stream = NULL;
#ifdef BENCH_EMU
    aclrtStream s;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    stream = s;
#endif
#ifdef BENCH_EMU
    if (kcold)
        kernel_cold(op, stream);
    else
#endif
        run_op(op, mpfr_n, stream);
#ifdef BENCH_EMU
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
#endif
    return 0;
}
