/* Driver of tools/bench-reference: elements per second of the reference's fast path, of pure
 * MPFR (force_mpfr), and of the emulated FP32 kernel (when built with -DBENCH_EMU), on the
 * shapes of tools/bench-kernels, in one run, with the ratios.
 * Timing: the same way for every mode. Each reference call allocates its output (56+13 bytes per
 * element); "cold" is a first call on fresh pages (kernel page faults and zeroing), "warm" the
 * median of 3 repeated calls whose allocator reuses the freed memory, as a harness looping over
 * cases does (mallopt below keeps freed memory in the heap). The kernel is timed warm (median of 3 after a
 * warm-up, both phases, device buffers allocated once), like tools/bench-kernels.
 * Pure MPFR runs on a batch subset (N = 1) and is reported per element (per-element work). */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "reference.h"

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
static double median3(const double *t)
{
    double lo = fmin(t[0], fmin(t[1], t[2])), hi = fmax(t[0], fmax(t[1], t[2]));
    return t[0] + t[1] + t[2] - lo - hi;
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

/* Seconds of one reference call on batch n; *elems its output elements. */
static double ref_avgpool(int64_t n, bool force, int64_t *elems)
{
    ref_avgpool_params p = AP;
    p.n = n;
    ref_options o = {.force_mpfr = force};
    ref_output out;
    double t0 = now();
    if (ref_avgpool2d_backward(&p, ap_go, &o, &out) != 0)
        exit(1);
    double dt = now() - t0;
    *elems = out.numel;
    ref_output_free(&out);
    return dt;
}

static double ref_grid(int64_t n, bool force, int64_t *elems)
{
    ref_grid_params p = GP;
    p.n = n;
    ref_options o = {.force_mpfr = force, .path = ref_grid_path(REF_DT_FLOAT)};
    ref_output a, b;
    double t0 = now();
    if (ref_grid_sampler2d_backward(&p, g_go, g_in, g_grid, &o, &a, &b) != 0)
        exit(1);
    double dt = now() - t0;
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

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds of 3 warm kernel calls (both phases) of op 0 avg-pool, 1 grid bilinear. */
static double kernel_time(int op, aclrtStream s)
{
    void *d[5] = {0};
    aclTensor *t[5] = {0};
    const int64_t ap_go_d[4] = {32, 64, 28, 28}, ap_in_d[4] = {32, 64, 56, 56};
    const int64_t g_d[4] = {8, 32, 64, 64}, g_grid_d[4] = {8, 64, 64, 2};
    const int64_t three = 3, two = 2, one = 1;
    aclIntArray *k = aclCreateIntArray(&three, 1), *st = aclCreateIntArray(&two, 1),
                *pd = aclCreateIntArray(&one, 1);
    const bool mask[2] = {true, true};
    aclBoolArray *m = aclCreateBoolArray(mask, 2);
    if (op == 0) {
        t[0] = dev_tensor(ap_go, ap_go_d, &d[0]);
        t[1] = dev_tensor(NULL, ap_in_d, &d[1]);
        t[2] = dev_tensor(NULL, ap_in_d, &d[2]);
    } else {
        t[0] = dev_tensor(g_go, g_d, &d[0]);
        t[1] = dev_tensor(g_in, g_d, &d[1]);
        t[2] = dev_tensor(g_grid, g_grid_d, &d[2]);
        t[3] = dev_tensor(NULL, g_d, &d[3]);
        t[4] = dev_tensor(NULL, g_grid_d, &d[4]);
    }
    double ts[4];
    for (int r = 0; r < 4; r++) {
        double t0 = now();
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        if (op == 0)
            CHECK(aclnnAvgPool2dBackwardGetWorkspaceSize(t[0], t[1], k, st, pd, false, true, 0, 0,
                                                         t[2], &ws, &ex));
        else
            CHECK(aclnnGridSampler2DBackwardGetWorkspaceSize(t[0], t[1], t[2], 0, 0, false, m,
                                                             t[3], t[4], &ws, &ex));
        void *w = NULL;
        if (ws > 0)
            CHECK(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST));
        if (op == 0)
            CHECK(aclnnAvgPool2dBackward(w, ws, ex, s));
        else
            CHECK(aclnnGridSampler2DBackward(w, ws, ex, s));
        CHECK(aclrtSynchronizeStream(s));
        ts[r] = now() - t0;
        if (w)
            aclrtFree(w);
    }
    for (int i = 0; i < 5; i++)
        if (t[i]) {
            aclDestroyTensor(t[i]);
            aclrtFree(d[i]);
        }
    aclDestroyIntArray(k);
    aclDestroyIntArray(st);
    aclDestroyIntArray(pd);
    aclDestroyBoolArray(m);
    qsort(ts + 1, 3, sizeof *ts, cmpd); /* ts[0]: warm-up */
    return ts[2];
}
#endif

/* Seconds of a first (cold) call and the median of 3 repeated (warm) calls; *cpu the median
 * CPU seconds (all threads) of the warm calls, steadier than wall time on a shared machine. */
static void timed(double (*run)(int64_t, bool, int64_t *), int64_t n, bool force, int64_t *e,
                  double *cold, double *warm, double *cpu)
{
    double t[3], c[3];
    *cold = run(n, force, e);
    for (int i = 0; i < 3; i++) {
        double c0 = cpu_now();
        t[i] = run(n, force, e);
        c[i] = cpu_now() - c0;
    }
    *warm = median3(t);
    *cpu = median3(c);
}

static void report(const char *name, double (*run)(int64_t, bool, int64_t *), int64_t n,
                   int64_t mpfr_n, double kt)
{
    int64_t e, em;
    double fc, fw, mc, mw, fcpu, mcpu;
    timed(run, n, false, &e, &fc, &fw, &fcpu);
    timed(run, mpfr_n, true, &em, &mc, &mw, &mcpu);
    double rfw = (double)e / fw, rfc = (double)e / fc, rmw = (double)em / mw, rmc = (double)em / mc;
    printf("%s: %lld elems\n", name, (long long)e);
    printf("  fast      warm %.3g elem/s (%.3f s), cold %.3g elem/s (%.3f s)\n", rfw, fw, rfc, fc);
    printf("  pure MPFR warm %.3g elem/s (%.3f s), cold %.3g elem/s (%.3f s) "
           "[N=%lld subset, %lld elems]\n", rmw, mw, rmc, mc, (long long)mpfr_n, (long long)em);
    printf("  fast/MPFR = %.1fx warm, %.1fx cold; per CPU-second (warm): fast %.3g, MPFR %.3g "
           "elem/s, %.1fx\n", rfw / rmw, rfc / rmc, (double)e / fcpu, (double)em / mcpu,
           ((double)e / fcpu) / ((double)em / mcpu));
    if (kt > 0)
        printf("  emulated FP32 kernel %.4f s (%.3g elem/s); reference fast time / kernel time = "
               "%.1fx warm, %.1fx cold\n", kt, (double)e / kt, fw / kt, fc / kt);
}

int main(int argc, char **argv)
{
    int64_t mpfr_n = argc > 1 ? atoll(argv[1]) : 1;
    /* keep freed memory in the heap: a repeated call reuses it instead of fresh pages */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    ap_go = rand_f32(AP.n * AP.c * AP.oh * AP.ow, -1, 1);
    int64_t ng = GP.n * GP.c * GP.h_in * GP.w_in;
    g_go = rand_f32(ng, -1, 1);
    g_in = rand_f32(ng, -1, 1);
    g_grid = rand_f32(GP.n * GP.h_out * GP.w_out * 2, -1.05, 1.05);
    double kt_ap = 0, kt_g = 0;
#ifdef BENCH_EMU
    aclrtStream s;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    kt_ap = kernel_time(0, s);
    kt_g = kernel_time(1, s);
#endif
    report("avgpool N=32 C=64 56x56 k3 s2 p1", ref_avgpool, AP.n, mpfr_n, kt_ap);
    report("grid bilinear zeros N=8 C=32 64x64, 64x64 grid (dx+dgrid)", ref_grid, GP.n, mpfr_n,
           kt_g);
#ifdef BENCH_EMU
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
#endif
    return 0;
}
