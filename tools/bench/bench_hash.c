/* The record's output hash (FNV-1a 64) by the serial loop (cts_fnv1a) against cts_fnv1a_long,
 * alternating in one process so a shared machine's load hits both: per round one timed pass of
 * each over a buffer, hashed `piece` bytes at a time from the running value (as the judge
 * hashes chunk after chunk), in process CPU seconds. Prints one line per round:
 * "piece serial_s long_s bytes". Both values are checked equal every round.
 * Usage: bench_hash [rounds] [bytes] [piece] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check/check.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Passes over buf (n bytes) until at least `least` bytes are hashed; *h the value. */
static double timed(bool serial, const unsigned char *buf, size_t n, size_t piece, size_t least,
                    uint64_t *h)
{
    uint64_t v = 0xcbf29ce484222325ull;
    double t0 = cpu_seconds();
    for (size_t done = 0; done < least; done += n)
        for (size_t k = 0; k < n; k += piece) {
            size_t m = n - k < piece ? n - k : piece;
            v = serial ? cts_fnv1a(v, buf + k, m) : cts_fnv1a_long(v, buf + k, m);
        }
    *h = v;
    return cpu_seconds() - t0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    long long n = argc > 2 ? atoll(argv[2]) : 16 << 20, piece = argc > 3 ? atoll(argv[3]) : n;
    if (rounds < 1 || n < 1 || piece < 1) {
        fprintf(stderr, "usage: bench_hash [rounds >= 1] [bytes >= 1] [piece >= 1]\n");
        return 2;
    }
    unsigned char *buf = malloc((size_t)n);
    if (!buf) return 1;
    uint64_t s = 0x9e3779b97f4a7c15ull; /* bytes of FP16 outputs' kind: most of them zero */
    for (long long i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (s >> 60) < 13 ? 0 : (unsigned char)(s >> 33);
    }
    size_t least = (size_t)n < (64u << 20) ? (64u << 20) : (size_t)n; /* each timing's bytes */
    for (int r = 0; r < rounds; r++) {
        uint64_t ha, hb;
        double ta, tb;
        if (r % 2) { /* which goes first alternates */
            tb = timed(false, buf, (size_t)n, (size_t)piece, least, &hb);
            ta = timed(true, buf, (size_t)n, (size_t)piece, least, &ha);
        } else {
            ta = timed(true, buf, (size_t)n, (size_t)piece, least, &ha);
            tb = timed(false, buf, (size_t)n, (size_t)piece, least, &hb);
        }
        if (ha != hb) {
            fprintf(stderr, "bench_hash: the values differ (%llx, %llx)\n",
                    (unsigned long long)ha, (unsigned long long)hb);
            return 1;
        }
        size_t bytes = (least + (size_t)n - 1) / (size_t)n * (size_t)n;
        printf("%lld %.6f %.6f %zu\n", piece, ta, tb, bytes);
    }
    free(buf);
    return 0;
}
