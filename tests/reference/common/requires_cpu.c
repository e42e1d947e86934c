/* Linked into a test of the reference built for one CPU level (REQUIRES_CPU: "baseline" or
 * "x86-64-v3"): before main, a CPU without that level's instructions skips the test (exit 77)
 * instead of dying on an illegal instruction. This file itself is built for the baseline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void requires_cpu(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && __GNUC__ >= 12 && !defined(__clang__)
    __builtin_cpu_init();
    if (strcmp(REQUIRES_CPU, "x86-64-v3") == 0 && !__builtin_cpu_supports("x86-64-v3")) {
        fprintf(stderr, "skipped: this CPU lacks x86-64-v3 (AVX2, FMA)\n");
        exit(77);
    }
#endif
}
