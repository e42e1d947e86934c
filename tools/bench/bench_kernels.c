/* Kernel benchmark driver for tools/bench-kernels: times the emulated FP32 operators through
 * the public CANN interface (both phases, deterministic on) at the thread counts given, and
 * writes the inputs it used to <dir>/<case>.<tensor>.f32 so PyTorch can time the same data.
 * Outputs are preallocated and touched once before timing (as PyTorch's are when its allocator
 * reuses warm memory); the page faults of each timed call are counted so the report can show
 * that neither side pays first-touch faults.
 * Usage: bench_kernels <dir> <repeats> <threads>...
 * Output: one line per timed call, "<case> <threads> <ms> <minor page faults>". */
#include <omp.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

#define CHECK(x)                                                                        \
    do {                                                                                \
        long rc_ = (long)(x);                                                           \
        if (rc_ != 0) {                                                                 \
            fprintf(stderr, "%s:%d: %s = %ld (%s)\n", __FILE__, __LINE__, #x, rc_,      \
                    aclGetRecentErrMsg());                                              \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

typedef struct {
    float *host;
    void *dev;
    aclTensor *t;
    int64_t n;
} buf;

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* Uniform in [lo, hi), fixed sequence. */
static float uniform(float lo, float hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (float)((rng >> 40) * 0x1p-24);
}

static buf make(const char *dir, const char *name, const int64_t *dims, int nd, float lo,
                float hi)
{
    buf b;
    b.n = 1;
    int64_t strides[4];
    for (int i = nd; i-- > 0;) {
        strides[i] = b.n;
        b.n *= dims[i];
    }
    size_t bytes = (size_t)b.n * sizeof(float);
    b.host = malloc(bytes);
    for (int64_t i = 0; i < b.n; i++) {
        b.host[i] = uniform(lo, hi);
    }
    if (name != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.f32", dir, name);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(b.host, 1, bytes, f) != bytes) {
            fprintf(stderr, "cannot write %s\n", path);
            exit(1);
        }
        fclose(f);
    }
    CHECK(aclrtMalloc(&b.dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(b.dev, bytes, b.host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    b.t = aclCreateTensor(dims, (uint64_t)nd, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, dims,
                          (uint64_t)nd, b.dev);
    return b;
}

static void drop(buf *b)
{
    aclDestroyTensor(b->t);
    aclrtFree(b->dev);
    free(b->host);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

typedef struct {
    buf go, self, gi;
    aclIntArray *k, *s, *p;
} avgpool_case;

static double avgpool_once(avgpool_case *c, aclrtStream stream)
{
    double t0 = now_ms();
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnAvgPool2dBackwardGetWorkspaceSize(c->go.t, c->self.t, c->k, c->s, c->p, false,
                                                 true, 0, 0, c->gi.t, &ws, &ex));
    void *w = NULL;
    if (ws > 0) {
        CHECK(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    CHECK(aclnnAvgPool2dBackward(w, ws, ex, stream));
    CHECK(aclrtSynchronizeStream(stream));
    double t1 = now_ms();
    if (w != NULL) {
        aclrtFree(w);
    }
    return t1 - t0;
}

typedef struct {
    buf go, in, grid, dx, dgrid;
    int64_t mode;
    aclBoolArray *mask;
} grid_case;

static double grid_once(grid_case *c, aclrtStream stream)
{
    double t0 = now_ms();
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnGridSampler2DBackwardGetWorkspaceSize(c->go.t, c->in.t, c->grid.t, c->mode, 0,
                                                     false, c->mask, c->dx.t, c->dgrid.t, &ws,
                                                     &ex));
    void *w = NULL;
    if (ws > 0) {
        CHECK(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    CHECK(aclnnGridSampler2DBackward(w, ws, ex, stream));
    CHECK(aclrtSynchronizeStream(stream));
    double t1 = now_ms();
    if (w != NULL) {
        aclrtFree(w);
    }
    return t1 - t0;
}

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* Warm-up calls as many as the PyTorch side makes (thread pool start, caches), then `reps`
 * timed calls, one line each. */
#define WARMUP 6
static void samples(const char *name, int threads, double (*once)(void *, aclrtStream), void *c,
                    aclrtStream s, int reps)
{
    for (int r = 0; r < WARMUP; r++) {
        once(c, s);
    }
    for (int r = 0; r < reps; r++) {
        long f0 = minor_faults();
        double ms = once(c, s);
        printf("%s %d %.4f %ld\n", name, threads, ms, minor_faults() - f0);
    }
    fflush(stdout);
}

static double avgpool_thunk(void *c, aclrtStream s) { return avgpool_once(c, s); }
static double grid_thunk(void *c, aclrtStream s) { return grid_once(c, s); }

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s <dir> <repeats> <threads>...\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int reps = atoi(argv[2]);
    aclrtStream stream;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&stream));
    CHECK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));

    /* avg-pool backward: N=32 C=64 H=W=56, kernel 3, stride 2, padding 1 -> 28x28. */
    avgpool_case ap;
    const int64_t go_dims[4] = {32, 64, 28, 28}, in_dims[4] = {32, 64, 56, 56};
    const int64_t three = 3, two = 2, one = 1;
    ap.go = make(dir, "avgpool.grad_output", go_dims, 4, -1, 1);
    ap.self = make(dir, "avgpool.self", in_dims, 4, -1, 1);
    ap.gi = make(dir, NULL, in_dims, 4, 0, 0);
    ap.k = aclCreateIntArray(&three, 1);
    ap.s = aclCreateIntArray(&two, 1);
    ap.p = aclCreateIntArray(&one, 1);

    /* grid-sampler backward: N=8 C=32 H=W=64, grid 64x64, zeros padding, align false. */
    grid_case gs;
    const int64_t g_go[4] = {8, 32, 64, 64}, g_in[4] = {8, 32, 64, 64}, g_grid[4] = {8, 64, 64, 2};
    gs.go = make(dir, "grid.grad_output", g_go, 4, -1, 1);
    gs.in = make(dir, "grid.input", g_in, 4, -1, 1);
    gs.grid = make(dir, "grid.grid", g_grid, 4, -1.05f, 1.05f);
    gs.dx = make(dir, NULL, g_in, 4, 0, 0);
    gs.dgrid = make(dir, NULL, g_grid, 4, 0, 0);
    const bool mask[2] = {true, true};
    gs.mask = aclCreateBoolArray(mask, 2);

    for (int a = 3; a < argc; a++) {
        int threads = atoi(argv[a]);
        omp_set_num_threads(threads);
        samples("avgpool2d_backward", threads, avgpool_thunk, &ap, stream, reps);
        const char *names[2] = {"grid_sampler2d_backward.bilinear",
                                "grid_sampler2d_backward.nearest"};
        for (int mode = 0; mode < 2; mode++) {
            gs.mode = mode;
            samples(names[mode], threads, grid_thunk, &gs, stream, reps);
        }
    }
    drop(&ap.go);
    drop(&ap.self);
    drop(&ap.gi);
    drop(&gs.go);
    drop(&gs.in);
    drop(&gs.grid);
    drop(&gs.dx);
    drop(&gs.dgrid);
    aclDestroyIntArray(ap.k);
    aclDestroyIntArray(ap.s);
    aclDestroyIntArray(ap.p);
    aclDestroyBoolArray(gs.mask);
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
