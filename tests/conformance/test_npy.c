/* The .npy writer, read back byte for byte. Expected bytes follow the NumPy format
 * specification (numpy/lib/format.py, version 1.0): magic "\x93NUMPY", major 1, minor 0, a
 * little-endian uint16 header length, the dict literal
 * "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" padded with spaces and one
 * final '\n' so that magic + length + header is a multiple of 64, then the raw C-order data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/data.h"

static size_t read_all(const char *path, unsigned char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, size, f);
    fclose(f);
    return n;
}

/* Check one file: header text exactly `dict`, then `data`. */
static void check_file(const char *path, const char *dict, const void *data, size_t nbytes)
{
    unsigned char buf[4096];
    size_t n = read_all(path, buf, sizeof buf);
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    size_t hlen = buf[8] | (size_t)buf[9] << 8;
    assert_int_equal((10 + hlen) % 64, 0);
    assert_int_equal(n, 10 + hlen + nbytes);
    size_t dl = strlen(dict);
    assert_memory_equal(buf + 10, dict, dl);
    for (size_t i = 10 + dl; i < 10 + hlen - 1; i++) assert_int_equal(buf[i], ' ');
    assert_int_equal(buf[10 + hlen - 1], '\n');
    if (nbytes) assert_memory_equal(buf + 10 + hlen, data, nbytes);
}

static void test_shapes_and_data(void **state)
{
    (void)state;
    char path[] = "/tmp/aclcts-npy-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);

    /* 2x3 float32: 1..6 as little-endian IEEE singles (1.0f = 00 00 80 3f). */
    float f[6] = {1, 2, 3, 4, 5, 6};
    int64_t d23[2] = {2, 3};
    assert_int_equal(cts_npy_write(path, "<f4", 2, d23, f, sizeof f), 0);
    check_file(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f, sizeof f);
    unsigned char raw[4096];
    read_all(path, raw, sizeof raw);
    /* 10 + 60-character dict + newline = 71 → a 128-byte header, as numpy.save writes */
    assert_memory_equal(raw + 128, "\x00\x00\x80\x3f", 4);

    /* Rank 1 is written "(5,)" like Python's tuple repr; FP16 1.0 = 0x3c00. */
    uint16_t h[5] = {0x3c00, 0, 0x8000, 0x7c00, 0x7e00};
    int64_t d5[1] = {5};
    assert_int_equal(cts_npy_write(path, "<f2", 1, d5, h, sizeof h), 0);
    check_file(path, "{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }", h, sizeof h);

    /* Rank 0 is "()"; an empty 4-D array has no data. */
    double one = 1.0;
    assert_int_equal(cts_npy_write(path, "<f8", 0, NULL, &one, 8), 0);
    check_file(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", &one, 8);
    int64_t d0[4] = {1, 0, 4, 4};
    assert_int_equal(cts_npy_write(path, "<f4", 4, d0, NULL, 0), 0);
    check_file(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 0, 4, 4), }", NULL,
               0);
    unlink(path);
}

/* A header long enough to need a second 64-byte block keeps the alignment rule. */
static void test_long_header_padding(void **state)
{
    (void)state;
    char hdr[640];
    int64_t dims[8] = {1000000000, 2, 3, 4, 5, 6, 7, 8};
    size_t n = cts_npy_header("<f8", 8, dims, hdr, sizeof hdr);
    const char *dict =
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 2, 3, 4, 5, 6, 7, 8), }";
    /* 10 + len(dict) + 1 for the newline = 10 + 86 + 1 = 97 → padded to 128 */
    assert_int_equal(strlen(dict), 86);
    assert_int_equal(n, 128);
    assert_memory_equal(hdr + 10, dict, strlen(dict));
    assert_int_equal(hdr[127], '\n');
    assert_int_equal(cts_npy_header("<f8", 8, dims, hdr, 100), 0); /* too small: refused */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_and_data),
        cmocka_unit_test(test_long_header_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
