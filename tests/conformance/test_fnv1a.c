/* cts_fnv1a_long (conformance/check/fnv1a.c: FNV-1a 64 without the serial chain where the CPU
 * has AVX-512 VBMI) against values found apart from it: FNV-1a's published values, values
 * computed by Python's integers over long patterns, and a plain serial loop written here, over
 * random buffers of every length 0 .. 300 and of whole blocks plus each of those lengths, at
 * odd starts, from random states (every low byte among them), and over several MB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"

static const uint64_t basis = 0xcbf29ce484222325ull;

/* FNV-1a, one byte after another, as its definition states it. */
static uint64_t serial(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n random bytes, most of them zero when sparse (as an FP16 output of exact zeros stores). */
static unsigned char *random_bytes(size_t n, uint64_t seed, int sparse)
{
    unsigned char *p = malloc(n ? n : 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next(&seed);
        p[i] = sparse && (r & 7) ? 0 : (unsigned char)(r >> 56);
    }
    return p;
}

/* The published values ("", "a", "foobar"), which the serial loop takes. */
static void test_published(void **state)
{
    (void)state;
    assert_true(cts_fnv1a_long(basis, (const unsigned char *)"", 0) == basis);
    assert_true(cts_fnv1a_long(basis, (const unsigned char *)"a", 1) == 0xaf63dc4c8601ec8cull);
    assert_true(cts_fnv1a_long(basis, (const unsigned char *)"foobar", 6) ==
                0x85944171f73967e8ull);
}

/* Byte i of the pattern: the top byte of i * 0x9e3779b97f4a7c15 (mod 2^64); every seventh byte
 * alone in the sparse one, the others zero. */
static unsigned char pattern(size_t i, int sparse)
{
    if (sparse && i % 7) return 0;
    return (unsigned char)(((uint64_t)i * 0x9e3779b97f4a7c15ull) >> 56);
}

/* Long buffers whose values Python's integers gave (the definition's loop, mod 2^64). */
static void test_python_values(void **state)
{
    (void)state;
    size_t n = 3000017;
    unsigned char *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) p[i] = pattern(i, 0);
    assert_true(cts_fnv1a_long(basis, p, n) == 0xcfa8e67cc4543479ull);
    for (size_t i = 0; i < n; i++) p[i] = pattern(i, 1);
    assert_true(cts_fnv1a_long(basis, p, n) == 0xbfbe280dadad52ebull);
    memset(p, 'a', 1024);
    assert_true(cts_fnv1a_long(basis, p, 1024) == 0xff4925a7cfa0f725ull);
    memset(p, 0xff, 5000);
    assert_true(cts_fnv1a_long(basis, p, 5000) == 0x6ed948965a0662bdull);
    free(p);
}

/* Every length 0 .. 300 alone and after one and two whole blocks, at starts 0 .. 8 and 63,
 * from random states, dense and sparse bytes. */
static void test_lengths(void **state)
{
    (void)state;
    uint64_t s = 42;
    for (int sparse = 0; sparse < 2; sparse++) {
        unsigned char *p = random_bytes(2 * CTS_FNV1A_LONG + 400, 7 + (uint64_t)sparse, sparse);
        static const size_t starts[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 63};
        for (size_t base = 0; base <= 2 * CTS_FNV1A_LONG; base += CTS_FNV1A_LONG)
            for (size_t r = 0; r <= 300; r++)
                for (size_t k = 0; k < sizeof starts / sizeof *starts; k++) {
                    uint64_t h = next(&s);
                    const unsigned char *q = p + starts[k];
                    assert_true(cts_fnv1a_long(h, q, base + r) == serial(h, q, base + r));
                }
        free(p);
    }
}

/* One block from a state of each low byte (each plane's carry in), and states with each high
 * bit alone. */
static void test_low_bytes(void **state)
{
    (void)state;
    unsigned char *p = random_bytes(CTS_FNV1A_LONG + 1, 11, 0);
    for (uint64_t l = 0; l < 256; l++) {
        uint64_t h = (0x0123456789abcd00ull + (l << 32)) | l;
        assert_true(cts_fnv1a_long(h, p, CTS_FNV1A_LONG) == serial(h, p, CTS_FNV1A_LONG));
        assert_true(cts_fnv1a_long(h, p + 1, CTS_FNV1A_LONG) == serial(h, p + 1, CTS_FNV1A_LONG));
    }
    for (int b = 0; b < 64; b++) {
        uint64_t h = 1ull << b;
        assert_true(cts_fnv1a_long(h, p, CTS_FNV1A_LONG) == serial(h, p, CTS_FNV1A_LONG));
    }
    free(p);
}

/* Several MB, whole and carried over pieces of uneven sizes (as the judge hashes chunks), all
 * zero and all ones too. */
static void test_megabytes(void **state)
{
    (void)state;
    size_t n = (5u << 20) + 77;
    for (int kind = 0; kind < 4; kind++) {
        unsigned char *p = random_bytes(n, 99 + (uint64_t)kind, kind == 1);
        if (kind >= 2) memset(p, kind == 2 ? 0 : 0xff, n);
        uint64_t want = serial(basis, p, n), h = basis;
        assert_true(cts_fnv1a_long(basis, p, n) == want);
        uint64_t s = (uint64_t)kind;
        for (size_t i = 0, m; i < n; i += m) {
            m = (size_t)(next(&s) % 70000);
            if (m > n - i) m = n - i;
            h = cts_fnv1a_long(h, p + i, m);
        }
        assert_true(h == want);
        free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published),  cmocka_unit_test(test_python_values),
        cmocka_unit_test(test_lengths),    cmocka_unit_test(test_low_bytes),
        cmocka_unit_test(test_megabytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
