/* cts_dev_tensor_decode of an FP16 image (every bit pattern in turn, NaNs among them) by the
 * CPU's F16C conversion against the portable loop (cts_decode_no_f16c), alternating in one
 * process so a shared machine's load hits both: per round one timed pass of each over the
 * image, decoded `piece` elements at a time into one buffer (as the judge and the reference's
 * inputs are decoded: chunk by chunk), in process CPU seconds. Prints one line per round:
 * "piece f16c_s portable_s". Before the rounds, the whole image decoded both ways is checked
 * bit for bit.
 * Usage: bench_decode [rounds] [elements] [piece] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One pass over the image, piece by piece into buf. */
static double timed_pass(const cts_dev_tensor *d, bool portable, int64_t piece, double *buf)
{
    cts_decode_no_f16c = portable;
    double t0 = cpu_seconds();
    for (int64_t k = 0; k < d->numel; k += piece)
        cts_dev_tensor_decode(d, d->back, k, d->numel - k < piece ? d->numel - k : piece, buf);
    double t = cpu_seconds() - t0;
    cts_decode_no_f16c = false;
    return t;
}

/* Whether the whole image decodes to the same bits both ways. */
static bool same_both_ways(const cts_dev_tensor *d)
{
    double *a = malloc((size_t)d->numel * sizeof *a), *b = malloc((size_t)d->numel * sizeof *b);
    bool same = a && b;
    if (same) {
        cts_decode_no_f16c = false;
        cts_dev_tensor_decode(d, d->back, 0, d->numel, a);
        cts_decode_no_f16c = true;
        cts_dev_tensor_decode(d, d->back, 0, d->numel, b);
        cts_decode_no_f16c = false;
        same = memcmp(a, b, (size_t)d->numel * sizeof *a) == 0;
    }
    free(a);
    free(b);
    return same;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    int64_t n = argc > 2 ? atoll(argv[2]) : 16 << 20, piece = argc > 3 ? atoll(argv[3]) : 65536;
    if (rounds < 1 || n < 1 || piece < 1) {
        fprintf(stderr, "usage: bench_decode [rounds >= 1] [elements >= 1] [piece >= 1]\n");
        return 2;
    }
    cts_tensor t = {.name = "x", .is_output = true, .rank = 1, .dims = {n},
                    .dtype = REF_DT_FLOAT16, .format = REF_FMT_ND};
    cts_dev_tensor d;
    double *buf = malloc((size_t)(piece < n ? piece : n) * sizeof *buf);
    if (!buf || cts_dev_tensor_prepare(&d, &t, 1, NULL) != 0) {
        fprintf(stderr, "bench_decode: out of memory\n");
        return 1;
    }
    for (int64_t i = 0; i < n; i++) {
        uint16_t h = (uint16_t)(i * 40503u); /* an odd step: every pattern, not in order */
        memcpy(d.back + CTS_GUARD_BYTES + 2 * i, &h, 2);
    }
    if (!same_both_ways(&d)) {
        fprintf(stderr, "bench_decode: the two decodes differ (or out of memory)\n");
        return 1;
    }
    for (int r = 0; r < rounds; r++) {
        bool f16c_first = r % 2 == 0;
        double tf = 0, tp = 0;
        if (f16c_first) tf = timed_pass(&d, false, piece, buf);
        tp = timed_pass(&d, true, piece, buf);
        if (!f16c_first) tf = timed_pass(&d, false, piece, buf);
        printf("%lld %.6f %.6f\n", (long long)piece, tf, tp);
    }
    cts_dev_tensor_free(NULL, &d);
    free(buf);
    return 0;
}
