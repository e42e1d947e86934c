/* cts_piece_hash (conformance/backend/dev_tensor.c: a sent image's pieces, hashed as they are
 * made and again when the device's copy comes back) against the same hash with its four lanes
 * in an array indexed by a loop, the form it had before (GCC 12 kept that array on the stack,
 * a load and a store a word), alternating in one process so a shared machine's load hits both
 * (which goes first alternates by round). Per round one timed pass of each over `total` bytes of
 * random data, `piece` bytes at a time (as pieces are hashed: one FP16 piece is 128 KiB), in
 * process CPU seconds. Prints one line per round: "piece library_s array_s". Before the rounds
 * the two are checked equal on every piece.
 * Usage: bench_piece_hash [rounds] [total bytes] [piece bytes] */
#include <stdint.h>
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

/* The peer: the lanes as an array, the loop over them as it was written before */
__attribute__((noinline)) static uint64_t hash_lanes_array(const unsigned char *p, size_t n)
{
    uint64_t h[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                     0x082efa98ec4e6c89ull};
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * l, 8);
            h[l] = (h[l] ^ w) * k;
        }
    for (; i < n; i++) h[0] = (h[0] ^ p[i]) * k;
    uint64_t r = n;
    for (int l = 0; l < 4; l++) r = (r ^ h[l] ^ (h[l] >> 29)) * k;
    return r;
}

/* One pass over buf in pieces; the hashes summed so no call is dropped */
static double timed_pass(const unsigned char *buf, size_t total, size_t piece, bool library,
                         uint64_t *sink)
{
    double t0 = cpu_seconds();
    for (size_t at = 0; at < total; at += piece) {
        size_t n = total - at < piece ? total - at : piece;
        *sink += library ? cts_piece_hash(buf + at, n) : hash_lanes_array(buf + at, n);
    }
    return cpu_seconds() - t0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    size_t total = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)1 << 26;
    size_t piece = argc > 3 ? strtoull(argv[3], NULL, 10) : (size_t)1 << 17;
    unsigned char *buf = malloc(total ? total : 1);
    if (!buf || rounds < 1 || piece < 1) {
        fprintf(stderr, "bench_piece_hash: bad arguments or out of memory\n");
        return 2;
    }
    uint64_t x = 0x9e3779b97f4a7c15ull, sink = 0;
    for (size_t i = 0; i < total; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (unsigned char)(x >> 56);
    }
    for (size_t at = 0; at < total; at += piece) {
        size_t n = total - at < piece ? total - at : piece;
        if (cts_piece_hash(buf + at, n) != hash_lanes_array(buf + at, n)) {
            fprintf(stderr, "bench_piece_hash: the two hashes differ at byte %zu\n", at);
            return 1;
        }
    }
    for (int r = 0; r < rounds; r++) {
        bool library_first = r % 2 == 0;
        double a = timed_pass(buf, total, piece, library_first, &sink);
        double b = timed_pass(buf, total, piece, !library_first, &sink);
        printf("%zu %.6f %.6f\n", piece, library_first ? a : b, library_first ? b : a);
    }
    fprintf(stderr, "(sink %016llx)\n", (unsigned long long)sink);
    free(buf);
    return 0;
}
