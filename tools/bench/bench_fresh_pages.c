/* Driver of tools/bench-fresh-pages: the CPU seconds (user + system) of writing a buffer of
 * fresh anonymous pages once, as the harness writes its images and the emulated device its
 * memory, with the pages faulted in one at a time by the writes ("fault"), made present first
 * by one madvise(MADV_POPULATE_WRITE) ("populate"), or that after MADV_HUGEPAGE on the
 * buffer's 2 MiB-aligned interior ("huge"). One process per measurement, so every page is new
 * to it. Prints "MODE MB SECONDS". */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static double cpu_now(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "fault") != 0 && strcmp(argv[1], "populate") != 0 &&
                      strcmp(argv[1], "huge") != 0)) {
        fprintf(stderr, "usage: bench_fresh_pages fault|populate|huge MB\n");
        return 2;
    }
    size_t mb = strtoull(argv[2], NULL, 10), n = mb << 20;
    double t0 = cpu_now();
    const size_t huge = (size_t)2 << 20;
    unsigned char *m = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    unsigned char *p = (unsigned char *)(((size_t)m + huge - 1) & ~(huge - 1));
    bool populate = strcmp(argv[1], "fault") != 0;
#ifdef MADV_HUGEPAGE
    if (strcmp(argv[1], "huge") == 0 && madvise(p, n, MADV_HUGEPAGE) != 0) {
        perror("madvise(MADV_HUGEPAGE)");
        return 1;
    }
#endif
#ifdef MADV_POPULATE_WRITE
    if (populate && madvise(p, n, MADV_POPULATE_WRITE) != 0) {
        perror("madvise(MADV_POPULATE_WRITE)");
        return 1;
    }
#else
    if (populate) {
        fprintf(stderr, "no MADV_POPULATE_WRITE in this C library's headers\n");
        return 1;
    }
#endif
    memset(p, 0xcd, n);
    double t = cpu_now() - t0;
    volatile unsigned char sink = p[n / 2];
    (void)sink;
    printf("%s %zu %.4f\n", argv[1], mb, t);
    return 0;
}
