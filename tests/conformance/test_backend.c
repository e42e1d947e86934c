/* cts_backend_open: dlopen of the emulated device's three libraries and every ABI symbol, and
 * the error messages a certifier sees when a library, a symbol or ASCEND_HOME_PATH is missing.
 * ctest sets ACLCTS_EMU_DIR to the build's ascend-emu. */
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "check/check.h"

static const char *emu_lib64(char *buf, size_t size)
{
    const char *dir = getenv("ACLCTS_EMU_DIR");
    if (!dir || !*dir) return NULL;
    char lib[PATH_MAX + 32];
    int n = snprintf(buf, size, "%s/lib64", dir);
    if (n < 0 || (size_t)n >= size) return NULL;
    n = snprintf(lib, sizeof lib, "%s/libopapi.so", buf);
    return n > 0 && (size_t)n < sizeof lib && access(lib, R_OK) == 0 ? buf : NULL;
}

static void test_open_emu(void **state)
{
    (void)state;
    char lib64[PATH_MAX];
    if (!emu_lib64(lib64, sizeof lib64)) {
        print_message("emulated device not built under $ACLCTS_EMU_DIR: skipped\n");
        skip();
    }
    cts_backend b;
    char err[512] = "";
    assert_int_equal(cts_backend_open("emu", &b, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_string_equal(b.name, "emu");
    assert_true(b.emulated);
    assert_string_equal(b.dir, lib64);
    /* Every pointer of the table is bound: the runtime's and both phases of every operator. */
    void (*const *fns)(void) = (void (*const *)(void))&b.aclInit;
    size_t n = (size_t)((const char *)(&b.aclDestroyBoolArray + 1) -
                        (const char *)&b.aclInit) / sizeof(void (*)(void));
    assert_int_equal(n, 20);
    for (size_t i = 0; i < n; i++) assert_non_null(fns[i]);
    for (int i = 0; i < cts_nops; i++) {
        assert_non_null(b.op_first[i]);
        assert_non_null(b.op_second[i]);
    }
    /* And they work: the emulation reports the product ACLCTS_SOC names. */
    setenv("ACLCTS_SOC", "ascend310p", 1);
    assert_int_equal(b.aclInit(NULL), 0);
    assert_non_null(strstr(b.aclrtGetSocName(), "310P"));
    assert_int_equal(b.aclFinalize(), 0);
    cts_backend_close(&b);

    /* cann:DIR with the same directory is a real-install backend (product not selectable). */
    char spec[PATH_MAX + 8];
    snprintf(spec, sizeof spec, "cann:%s", lib64);
    assert_int_equal(cts_backend_open(spec, &b, err, sizeof err), 0);
    assert_string_equal(b.name, "cann");
    assert_false(b.emulated);
    cts_backend_close(&b);
}

static void test_missing_library_named(void **state)
{
    (void)state;
    cts_backend b;
    char err[512];
    assert_int_equal(cts_backend_open("cann:/nonexistent/lib64", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/lib64/libascendcl.so"));
}

static void test_missing_symbol_named(void **state)
{
    (void)state;
    char lib64[PATH_MAX];
    if (!emu_lib64(lib64, sizeof lib64)) skip();
    /* A directory whose libopapi.so is really libnnopbase: no operator symbols. */
    char dir[] = "/tmp/aclcts-backend-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char from[PATH_MAX + 32], to[PATH_MAX + 32];
    const char *links[3][2] = {{"libascendcl.so", "libascendcl.so"},
                               {"libnnopbase.so", "libnnopbase.so"},
                               {"libnnopbase.so", "libopapi.so"}};
    for (int i = 0; i < 3; i++) {
        snprintf(from, sizeof from, "%s/%s", lib64, links[i][0]);
        snprintf(to, sizeof to, "%s/%s", dir, links[i][1]);
        assert_int_equal(symlink(from, to), 0);
    }
    char spec[64];
    snprintf(spec, sizeof spec, "cann:%s", dir);
    cts_backend b;
    char err[512];
    assert_int_equal(cts_backend_open(spec, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbol aclnnAvgPool2dBackwardGetWorkspaceSize not found"));
    for (int i = 0; i < 3; i++) {
        snprintf(to, sizeof to, "%s/%s", dir, links[i][1]);
        unlink(to);
    }
    rmdir(dir);
}

/* A temporary directory of symlinks into lib64: links[i] = {target in lib64, name}. */
static void link_dir(const char *lib64, char *dir, const char *const (*links)[2], int n)
{
    assert_non_null(mkdtemp(dir));
    char from[PATH_MAX + 32], to[PATH_MAX + 32];
    for (int i = 0; i < n; i++) {
        snprintf(from, sizeof from, "%s/%s", lib64, links[i][0]);
        snprintf(to, sizeof to, "%s/%s", dir, links[i][1]);
        assert_int_equal(symlink(from, to), 0);
    }
}

static void unlink_dir(const char *dir, const char *const (*links)[2], int n)
{
    char to[PATH_MAX + 32];
    for (int i = 0; i < n; i++) {
        snprintf(to, sizeof to, "%s/%s", dir, links[i][1]);
        unlink(to);
    }
    rmdir(dir);
}

static int open_dir(const char *dir, char *err, size_t errlen)
{
    char spec[64];
    snprintf(spec, sizeof spec, "cann:%s", dir);
    cts_backend b;
    int rc = cts_backend_open(spec, &b, err, errlen);
    if (rc == 0) cts_backend_close(&b);
    return rc;
}

/* The operator libraries are found as op-plugin finds them (op_plugin/utils/op_api_common.cpp):
 * any libopapi_*.so, then libopapi.so, then the older libaclnn_ops_* names. */
static void test_operator_library_discovery(void **state)
{
    (void)state;
    char lib64[PATH_MAX], err[512];
    if (!emu_lib64(lib64, sizeof lib64)) skip();
    static const char *const names[] = {"libopapi_nn.so", "libopapi.so",
                                        "libaclnn_ops_train.so", "libaclnn_ops_infer.so"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *const links[3][2] = {{"libascendcl.so", "libascendcl.so"},
                                         {"libnnopbase.so", "libnnopbase.so"},
                                         {"libopapi.so", names[k]}};
        char dir[] = "/tmp/aclcts-backend-XXXXXX";
        link_dir(lib64, dir, links, 3);
        assert_int_equal(open_dir(dir, err, sizeof err), 0);
        unlink_dir(dir, links, 3);
    }
    /* A libopapi_*.so without the operators comes first; libopapi.so still provides them. */
    const char *const split[4][2] = {{"libascendcl.so", "libascendcl.so"},
                                     {"libnnopbase.so", "libnnopbase.so"},
                                     {"libnnopbase.so", "libopapi_math.so"},
                                     {"libopapi.so", "libopapi.so"}};
    char dir[] = "/tmp/aclcts-backend-XXXXXX";
    link_dir(lib64, dir, split, 4);
    assert_int_equal(open_dir(dir, err, sizeof err), 0);
    unlink_dir(dir, split, 4);
    /* No operator library at all: named as such. */
    char none[] = "/tmp/aclcts-backend-XXXXXX";
    link_dir(lib64, none, split, 2);
    assert_int_equal(open_dir(none, err, sizeof err), -1);
    assert_non_null(strstr(err, "no operator library"));
    unlink_dir(none, split, 2);
}

static void test_cann_needs_ascend_home(void **state)
{
    (void)state;
    unsetenv("ASCEND_HOME_PATH");
    cts_backend b;
    char err[512];
    assert_int_equal(cts_backend_open("cann", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "ASCEND_HOME_PATH is not set"));
    assert_int_equal(cts_backend_open("gpu", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown backend 'gpu'"));
}

/* FP16 images against the compiler's _Float16 (an independent conversion): every one of the
 * 65536 bit patterns decodes to the value _Float16 gives it (NaN to a NaN), and every value
 * encodes back to its own bits (NaNs to the quiet NaN 0x7e00). */
static void test_fp16_images(void **state)
{
    (void)state;
#ifndef __FLT16_MAX__
    skip(); /* this compiler has no _Float16 here (clang 14 on x86-64) */
#else
    for (uint32_t b = 0; b < 65536; b++) {
        uint16_t h = (uint16_t)b, back;
        _Float16 f;
        memcpy(&f, &h, 2);
        double want = (double)f, got = cts_decode(REF_DT_FLOAT16, &h);
        if (isnan(want)) {
            assert_true(isnan(got));
            cts_encode(REF_DT_FLOAT16, got, &back);
            assert_int_equal(back, 0x7e00);
            continue;
        }
        if (!(got == want && signbit(got) == signbit(want)))
            fail_msg("0x%04x decodes to %a, _Float16 %a", b, got, want);
        cts_encode(REF_DT_FLOAT16, want, &back);
        if (back != h) fail_msg("%a encodes to 0x%04x, not 0x%04x", want, back, b);
    }
#endif
}

/* Same bits, NaNs too (FP16's decode to the one NaN, FP32's and BF16's keep their payload). */
static bool same_value(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A plain view's decode (one dtype test per run of elements, the vector loops of FP16, BF16 and
 * FP32) gives, element by element and bit for bit, what cts_decode gives each element alone:
 * every FP16 and BF16 pattern, and FP32 patterns of every exponent with both signs, NaNs and
 * subnormals among them; from offsets that start inside the image. FP16 both by the CPU's F16C
 * conversion (where it has one) and by the portable loop (cts_decode_no_f16c). */
static void decode_runs(bool no_f16c)
{
    cts_decode_no_f16c = no_f16c;
    static const ref_dtype dts[] = {REF_DT_FLOAT16, REF_DT_FLOAT, REF_DT_BF16, REF_DT_INT32};
    for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
        cts_tensor tt = {.name = "x", .is_output = true, .rank = 1, .dims = {65536},
                         .dtype = dts[t], .format = REF_FMT_ND};
        cts_dev_tensor d;
        assert_int_equal(cts_dev_tensor_prepare(&d, &tt, 1, NULL), 0);
        unsigned char *data = d.back + CTS_GUARD_BYTES;
        uint32_t x = 0x9E3779B9u;
        for (size_t i = 0; i < 65536; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32: every exponent */
            uint32_t w = d.esize == 2 ? (uint32_t)i : (x & 0x807fffffu) | (uint32_t)(i & 0xff) << 23;
            memcpy(data + i * d.esize, &w, d.esize); /* little-endian low bytes */
        }
        static const int64_t firsts[] = {0, 1, 4095, 65000};
        double *got = malloc(65536 * sizeof *got);
        for (size_t f = 0; f < 4; f++) {
            int64_t n = 65536 - firsts[f];
            cts_dev_tensor_decode(&d, d.back, firsts[f], n, got);
            for (int64_t i = 0; i < n; i++) {
                double want = cts_decode(dts[t], data + (firsts[f] + i) * (int64_t)d.esize);
                if (!same_value(got[i], want))
                    fail_msg("%s element %lld: %a, alone %a", ref_dtype_name(dts[t]),
                             (long long)(firsts[f] + i), got[i], want);
            }
        }
        free(got);
        cts_dev_tensor_free(NULL, &d);
    }
    cts_decode_no_f16c = false;
}

static void test_decode_runs(void **state)
{
    (void)state;
    decode_runs(false);
    decode_runs(true);
}

/* The fill of test_encode_runs: element i is the value image `ctx` (a decoded image) holds. */
static void fill_decoded(void *ctx, int64_t first, int64_t n, double *out)
{
    memcpy(out, (const double *)ctx + first, (size_t)n * sizeof *out);
}

/* An input's sent image, encoded a run at a time from values of its dtype (prepare_fill), holds
 * the bytes cts_encode gives each value alone: every FP16 and BF16 pattern (NaNs among them, as
 * the quiet NaN) and FP32 patterns of every exponent, in pieces over several threads; its guard
 * zones hold the poison. */
static void test_encode_runs(void **state)
{
    (void)state;
    static const ref_dtype dts[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT};
    enum { N = 3 * 65536 }; /* pieces of 65536 elements: several, and each pattern in each */
    for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
        size_t es = cts_dtype_size(dts[t]);
        double *vals = malloc(N * sizeof *vals);
        uint32_t x = 0x9E3779B9u;
        for (size_t i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            uint32_t w = es == 2 ? (uint32_t)(i & 0xffff) : (x & 0x807fffffu) | (uint32_t)(i & 0xff) << 23;
            vals[i] = cts_decode(dts[t], &w);
        }
        cts_tensor tt = {.name = "x", .rank = 1, .dims = {N}, .dtype = dts[t], .format = REF_FMT_ND};
        cts_dev_tensor d;
        assert_int_equal(cts_dev_tensor_prepare_fill(&d, &tt, 0, fill_decoded, vals), 0);
        for (size_t i = 0; i < N; i++) {
            unsigned char want[8];
            cts_encode(dts[t], vals[i], want);
            if (memcmp(d.sent + CTS_GUARD_BYTES + i * es, want, es) != 0)
                fail_msg("%s element %zu (%a): the run's bytes differ from cts_encode's",
                         ref_dtype_name(dts[t]), i, vals[i]);
        }
        for (size_t i = 0; i < d.bytes; i++) /* the guard zones on either side: the poison */
            if ((i < CTS_GUARD_BYTES || i >= CTS_GUARD_BYTES + N * es) &&
                d.sent[i] != cts_poison_byte(i))
                fail_msg("%s image byte %zu: 0x%02x, not the poison", ref_dtype_name(dts[t]), i,
                         d.sent[i]);
        free(vals);
        cts_dev_tensor_free(NULL, &d);
    }
}

/* Hand-picked values into FP16 and BF16 images, the bits derived from the formats (FP16: sign,
 * 5 exponent bits biased by 15, 10 fraction bits, 2^-24 the smallest subnormal; BF16: the top
 * half of a FLOAT): ±0, subnormals, the largest finite, ±inf, NaNs of either sign as the one
 * quiet NaN. Values of the dtype go through prepare_fill's run encoder (cyclically, so each
 * lands in every vector lane and in the tail); unrounded ones through prepare, which rounds:
 * ties to even at 1, in the subnormals and at the overflow threshold. */
typedef struct { double x; uint16_t bits; } picked;

static void check_image(ref_dtype dt, const picked *p, int n, bool held)
{
    enum { M = 301 };
    cts_tensor tt = {.name = "x", .rank = 1, .dims = {M}, .dtype = dt, .format = REF_FMT_ND};
    double *vals = malloc(M * sizeof *vals);
    assert_non_null(vals);
    for (int i = 0; i < M; i++) vals[i] = p[i % n].x;
    cts_dev_tensor d;
    if (held) {
        assert_int_equal(cts_dev_tensor_prepare_fill(&d, &tt, 0, fill_decoded, vals), 0);
    } else {
        assert_int_equal(cts_dev_tensor_prepare(&d, &tt, 0, vals), 0);
        vals = NULL; /* the tensor's now */
    }
    for (int i = 0; i < M; i++) {
        uint16_t got;
        memcpy(&got, d.sent + CTS_GUARD_BYTES + 2 * i, 2);
        if (got != p[i % n].bits)
            fail_msg("%s element %d: %a as 0x%04x, not 0x%04x", ref_dtype_name(dt), i,
                     p[i % n].x, got, p[i % n].bits);
    }
    free(vals);
    cts_dev_tensor_free(NULL, &d);
}

static void test_encode_picked(void **state)
{
    (void)state;
    static const picked fp16[] = {
        {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {-65504, 0xfbff}, {0x1p-24, 0x0001},
        {-0x1p-24, 0x8001}, {0x1.ff8p-15, 0x03ff}, {0x1p-14, 0x0400}, {0.0, 0x0000},
        {-0.0, 0x8000}, {INFINITY, 0x7c00}, {-INFINITY, 0xfc00}, {NAN, 0x7e00},
        {-NAN, 0x7e00}, {0.0999755859375, 0x2e66}, /* 1.599609375·2^-4: 11 << 10 | 614 */
        {3 * 0x1p-24, 0x0003},
    };
    static const picked bf16[] = {
        {1, 0x3f80}, {-0.0, 0x8000}, {0x1p-133, 0x0001}, {0x1.fep127, 0x7f7f},
        {-INFINITY, 0xff80}, {NAN, 0x7fc0}, {-NAN, 0x7fc0}, {0x1.9ap-4, 0x3dcd},
        {0x1p-126, 0x0080},
    };
    static const picked fp16_rounded[] = {
        {1 + 0x1p-11, 0x3c00}, {1 + 3 * 0x1p-11, 0x3c02}, {65520, 0x7c00}, {65519, 0x7bff},
        {-65520, 0xfc00}, {0x1p-25, 0x0000}, {-0x1p-25, 0x8000}, {3 * 0x1p-25, 0x0002},
        {NAN, 0x7e00},
    };
    static const picked bf16_rounded[] = {
        {1 + 0x1p-8, 0x3f80}, {1 + 3 * 0x1p-8, 0x3f82}, {0x1.fep127 + 0x1p119, 0x7f80},
        {0x1p-134, 0x0000}, {3 * 0x1p-134, 0x0002},
    };
#define PICKED(a) a, (int)(sizeof a / sizeof a[0])
    check_image(REF_DT_FLOAT16, PICKED(fp16), true);
    check_image(REF_DT_BF16, PICKED(bf16), true);
    check_image(REF_DT_FLOAT16, PICKED(fp16), false);
    check_image(REF_DT_FLOAT16, PICKED(fp16_rounded), false);
    check_image(REF_DT_BF16, PICKED(bf16_rounded), false);
#undef PICKED
}

/* cts_piece_hash by its definition in backend.h, one byte at a time: word j of each 32 bytes
 * assembled little-endian and folded into lane j. */
static uint64_t piece_hash_by_definition(const unsigned char *p, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                     0x082efa98ec4e6c89ull};
    size_t whole = n / 32 * 32;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t w = 0;
        for (int b = 7; b >= 0; b--) w = w << 8 | p[i + (size_t)b];
        h[i / 8 % 4] = (h[i / 8 % 4] ^ w) * k;
    }
    for (size_t i = whole; i < n; i++) h[0] = (h[0] ^ p[i]) * k;
    uint64_t r = n;
    for (int l = 0; l < 4; l++) r = (r ^ h[l] ^ (h[l] >> 29)) * k;
    return r;
}

/* The pieces' hash against its definition: every length 0 .. 200 and 128 KiB ± 1 (an FP16
 * piece), on bytes of a fixed xorshift sequence; and a changed byte in any lane changes it. */
static void test_piece_hash(void **state)
{
    (void)state;
    enum { N = 131073 };
    unsigned char *buf = malloc(N);
    uint64_t x = 0x0123456789abcdefull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (unsigned char)(x >> 56);
    }
    for (size_t n = 0; n <= 200; n++)
        assert_int_equal(cts_piece_hash(buf, n), piece_hash_by_definition(buf, n));
    for (size_t n = N - 2; n <= N; n++)
        assert_int_equal(cts_piece_hash(buf, n), piece_hash_by_definition(buf, n));
    uint64_t h = cts_piece_hash(buf, 4096);
    for (size_t i = 0; i < 64; i++) {
        buf[i] ^= 1;
        assert_int_not_equal(cts_piece_hash(buf, 4096), h);
        buf[i] ^= 1;
    }
    free(buf);
}

/* The fill of test_dropped_image_comes_back: FP16 values of element i (a few patterns) */
static void fill_fp16(void *ctx, int64_t first, int64_t n, double *out)
{
    (void)ctx;
    for (int64_t i = 0; i < n; i++) out[i] = (double)((first + i) % 2048) / 64 - 16;
}

/* An input's sent image goes once uploaded, a hash of each piece kept (dev_tensor.c drop_sent:
 * pieces of 65536 elements, the first with the guard before, the last with the guard after),
 * and download_input reads the device's bytes back: the image, bitwise the one sent, where
 * every piece hashes as sent; else what came back, which the checks name. A plain FP16 input of
 * 2.5 pieces on the emulated device, unchanged, then with one byte changed in turn: in the guard
 * before the data, the first element, the last of piece 0 and the first of piece 1, the last
 * element, the last byte of the guard after. */
static void test_dropped_image_comes_back(void **state)
{
    (void)state;
    char lib64[PATH_MAX], err[512] = "";
    if (!emu_lib64(lib64, sizeof lib64)) skip();
    cts_backend b;
    assert_int_equal(cts_backend_open("emu", &b, err, sizeof err), 0);
    assert_int_equal(b.aclInit(NULL), 0);
    assert_int_equal(b.aclrtSetDevice(0), 0);
    enum { N = 65536 * 5 / 2 };
    cts_tensor tt = {.name = "x", .rank = 1, .dims = {N}, .dtype = REF_DT_FLOAT16,
                     .format = REF_FMT_ND};
    const size_t g = CTS_GUARD_BYTES, data = g + 2 * (size_t)N;
    const size_t at[] = {SIZE_MAX, 7, g, g + 2 * 65535 + 1, g + 2 * 65536, data - 1,
                         data + g - 1};
    unsigned char *sent = NULL;
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        cts_dev_tensor d;
        assert_int_equal(cts_dev_tensor_prepare_fill(&d, &tt, 0, fill_fp16, NULL), 0);
        if (!sent) sent = memcpy(malloc(d.bytes), d.sent, d.bytes);
        assert_int_equal(cts_dev_tensor_upload(&b, &d, err, sizeof err), 0);
        assert_null(d.sent); /* dropped */
        unsigned char x = (unsigned char)(sent[at[k] < d.bytes ? at[k] : 0] ^ 0x10);
        if (at[k] != SIZE_MAX)
            assert_int_equal(b.aclrtMemcpy((unsigned char *)d.dev + at[k], 1, &x, 1,
                                           ACL_MEMCPY_HOST_TO_DEVICE), 0);
        assert_int_equal(cts_dev_tensor_download_input(&b, &d, err, sizeof err), 0);
        assert_memory_equal(d.sent, sent, d.bytes); /* made again where it came back changed */
        cts_verdict v;
        memset(&v, 0, sizeof v);
        bool in_data = at[k] >= g && at[k] < data;
        assert_int_equal(d.back_same, at[k] == SIZE_MAX);
        assert_int_equal(cts_check_input_unchanged(&d, &v), !in_data);
        assert_int_equal(cts_check_guards(&d, &v), in_data || at[k] == SIZE_MAX);
        if (in_data) {
            char idx[32];
            snprintf(idx, sizeof idx, "element [%zu]", (at[k] - g) / 2);
            assert_non_null(strstr(v.message, idx));
        }
        cts_dev_tensor_free(&b, &d);
    }
    free(sent);
    b.aclFinalize();
    cts_backend_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_emu),
        cmocka_unit_test(test_missing_library_named),
        cmocka_unit_test(test_missing_symbol_named),
        cmocka_unit_test(test_operator_library_discovery),
        cmocka_unit_test(test_cann_needs_ascend_home),
        cmocka_unit_test(test_fp16_images),
        cmocka_unit_test(test_decode_runs),
        cmocka_unit_test(test_encode_runs),
        cmocka_unit_test(test_encode_picked),
        cmocka_unit_test(test_piece_hash),
        cmocka_unit_test(test_dropped_image_comes_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
