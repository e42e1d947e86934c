/* cts_fill_range of one 16 M element normal tensor (a = 0, b = 1) per dtype, the fill as built
 * (vector log and cos where the dtype allows) against the same fill with libm alone
 * (cts_datagen_libm_only), alternating in one process so a shared machine's load hits both:
 * per round and dtype one timed fill of each, in process CPU seconds. A uniform fill of the
 * same tensor is timed beside them: one counter-based draw an element and the rounding to the
 * dtype, of which the normal fill makes two draws (its floor while the tensor's values stay
 * what the suite defines). Prints one line per round and dtype: "dtype new_s libm_s
 * uniform_s", and checks the two normal fills are bitwise the same.
 * Usage: bench_fill [rounds] [elements] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/data.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double timed_fill(const cts_case *c, bool libm, double *out, int64_t n)
{
    cts_datagen_libm_only = libm;
    double t0 = cpu_seconds();
    cts_fill(c, 0, out, n);
    double t = cpu_seconds() - t0;
    cts_datagen_libm_only = false;
    return t;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    int64_t n = argc > 2 ? atoll(argv[2]) : 16 << 20;
    const struct { ref_dtype dt; const char *name; } dts[] = {
        {REF_DT_FLOAT16, "float16"}, {REF_DT_BF16, "bf16"}, {REF_DT_FLOAT, "float32"},
        {REF_DT_DOUBLE, "double"}};
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    if (!x || !y) return 1;
    for (int r = 0; r < rounds; r++)
        for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
            cts_case c;
            memset(&c, 0, sizeof c);
            snprintf(c.id, sizeof c.id, "bench.fill.%s.ascend910b", dts[d].name);
            c.seed = 1;
            c.ntensors = 1;
            c.t[0].name = "self";
            c.t[0].dtype = dts[d].dt;
            c.t[0].gen.kind = CTS_GEN_NORMAL;
            c.t[0].gen.b = 1;
            bool libm_first = r % 2; /* alternate which goes first */
            double tl = 0, tn = 0;
            if (libm_first) tl = timed_fill(&c, true, y, n);
            tn = timed_fill(&c, false, x, n);
            if (!libm_first) tl = timed_fill(&c, true, y, n);
            if (memcmp(x, y, (size_t)n * sizeof *x) != 0) {
                fprintf(stderr, "bench_fill: %s differs from libm\n", dts[d].name);
                return 1;
            }
            c.t[0].gen.kind = CTS_GEN_UNIFORM; /* [0, 1) */
            double tu = timed_fill(&c, false, y, n);
            printf("%s %.4f %.4f %.4f\n", dts[d].name, tn, tl, tu);
        }
    free(x);
    free(y);
    return 0;
}
