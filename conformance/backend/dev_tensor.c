/* Device tensors with guard zones and poison (backend.h). */
#include "backend.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DECODE_F16C 1 /* decode_fp16_f16c */
#include <immintrin.h>
#else
#define DECODE_F16C 0
#endif

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "host images assume little-endian");

/* Pages made present in one call cost this VM about half the CPU of faulting them in as the
 * writes reach them, and whole 2 MiB pages (the buffer's aligned interior) about a sixth
 * (tools/bench-fresh-pages): a fresh 4 KiB page costs microseconds at its first touch even
 * when present. Only hints: pages they could not make present fault as before. */
void *cts_malloc_written(size_t bytes)
{
    unsigned char *p = malloc(bytes);
    if (!p || bytes < (1u << 20)) return p;
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t ha = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hb = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hb > ha) (void)madvise((void *)ha, hb - ha, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    const uintptr_t pg = 4096;
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + bytes) & ~(pg - 1);
    if (b > a) (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
    return p;
}

/* x is already an FP16 value (rounded by ref_round_to): pack sign, exponent, significand. A
 * normal one is the double's own exponent and top 10 fraction bits. */
static uint16_t fp16_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    uint16_t sign = (uint16_t)(u >> 48 & 0x8000);
    int e = (int)(u >> 52 & 0x7ff) - 1023;
    if (e >= -14 && e <= 15)
        return sign | (uint16_t)((e + 15) << 10) | (uint16_t)(u >> 42 & 0x3ff);
    double a = fabs(x);
    if (isnan(x)) return 0x7e00;
    if (isinf(a)) return sign | 0x7c00;
    return sign | (uint16_t)(a * 0x1p24); /* subnormal or zero: exact */
}

/* The magnitude's bits shifted into an FP32's place are an FP32 of the same significand whose
 * exponent is biased by 127 instead of 15: 2^112 times the value, subnormals included (an FP32
 * subnormal then), and both products are exact. */
static double fp16_value(uint16_t h)
{
    uint32_t mag = h & 0x7fffu, b = mag << 13;
    float f;
    memcpy(&f, &b, sizeof f);
    if (mag > 0x7c00u) return NAN; /* any payload, either sign: the one NaN */
    double v = mag < 0x7c00u ? (double)f * 0x1p112 : INFINITY;
    return h & 0x8000u ? -v : v;
}

/* x, a BF16 value already: the top half of its FLOAT (exact), NaN the quiet 0x7fc0. */
static inline uint16_t bf16_bits(double x)
{
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return isnan(f) ? 0x7fc0 : (uint16_t)(u >> 16);
}

void cts_encode(ref_dtype dt, double x, void *dst)
{
    switch (dt) {
    case REF_DT_FLOAT16: { uint16_t h = fp16_bits(ref_round_to(x, dt)); memcpy(dst, &h, 2); return; }
    case REF_DT_BF16: { uint16_t h = bf16_bits(ref_round_to(x, dt)); memcpy(dst, &h, 2); return; }
    case REF_DT_FLOAT: { float f = (float)ref_round_to(x, dt); memcpy(dst, &f, 4); return; }
    case REF_DT_DOUBLE: memcpy(dst, &x, 8); return;
    default: break;
    }
    /* Integer and other dtypes only appear in dtype-error cases: any bits will do, keep them
     * meaningful for dumps. */
    int64_t i = !isfinite(x) ? 0 : x >= 0x1p63 ? INT64_MAX : x < -0x1p63 ? INT64_MIN : (int64_t)x;
    size_t n = cts_dtype_size(dt);
    memset(dst, 0, n);
    memcpy(dst, &i, n < 8 ? n : 8);
}

double cts_decode(ref_dtype dt, const void *src)
{
    switch (dt) {
    case REF_DT_FLOAT16: { uint16_t h; memcpy(&h, src, 2); return fp16_value(h); }
    case REF_DT_BF16: {
        uint16_t h;
        memcpy(&h, src, 2);
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case REF_DT_FLOAT: { float f; memcpy(&f, src, 4); return f; }
    case REF_DT_DOUBLE: { double d; memcpy(&d, src, 8); return d; }
    case REF_DT_INT8: return *(const int8_t *)src;
    case REF_DT_UINT8: case REF_DT_BOOL: return *(const uint8_t *)src;
    case REF_DT_INT16: { int16_t v; memcpy(&v, src, 2); return v; }
    case REF_DT_UINT16: { uint16_t v; memcpy(&v, src, 2); return v; }
    case REF_DT_INT32: { int32_t v; memcpy(&v, src, 4); return v; }
    case REF_DT_UINT32: { uint32_t v; memcpy(&v, src, 4); return v; }
    case REF_DT_INT64: { int64_t v; memcpy(&v, src, 8); return (double)v; }
    case REF_DT_UINT64: { uint64_t v; memcpy(&v, src, 8); return (double)v; }
    default: return NAN;
    }
}

unsigned char cts_poison_byte(size_t i)
{
    /* 0xA5 + 0x3B·i: never a run of zeros, and FP16/FP32 words of it are ordinary numbers a
     * kernel would not produce by accident. */
    return (unsigned char)(0xA5u + 0x3Bu * (unsigned)(i & 0xff));
}

int64_t cts_dev_tensor_pos(const cts_dev_tensor *d, int64_t k)
{
    int64_t pos = d->t->offset;
    for (int i = d->t->rank - 1; i >= 0; i--) {
        int64_t n = d->t->dims[i];
        pos += (k % n) * d->strides[i];
        k /= n;
    }
    return pos;
}

int cts_dev_tensor_layout(cts_dev_tensor *d, const cts_tensor *t, int slot)
{
    memset(d, 0, sizeof *d);
    d->t = t;
    d->slot = slot;
    d->esize = cts_dtype_size(t->dtype);
    cts_tensor_extent e;
    bool ok = cts_tensor_layout(t, d->strides, &e);
    d->numel = e.numel;
    d->storage = e.storage;
    d->bytes = (size_t)e.bytes;
    return ok && (uint64_t)e.bytes <= SIZE_MAX ? 0 : -1;
}

/* Bytes per piece when a buffer moves or is compared piece by piece, and elements per piece
 * of a fill: the bytes a multiple of 256, the poison's period, so a piece of poison is the same
 * wherever it starts. */
#define PIECE_BYTES ((size_t)1 << 20)
#define PIECE_ELEMS ((int64_t)1 << 16)

bool cts_dev_tensor_plain(const cts_dev_tensor *d)
{
    return !d->t->has_strides && d->t->offset == 0;
}

/* Bytes [0, n) of the poison. */
static void poison_fill(unsigned char *p, size_t n)
{
    size_t done = n < 256 ? n : 256;
    for (size_t i = 0; i < done; i++) p[i] = cts_poison_byte(i);
    for (; done < n; done *= 2) memcpy(p + done, p, n - done < done ? n - done : done);
}

unsigned char cts_dev_tensor_sent_byte(const cts_dev_tensor *d, size_t i)
{
    return d->sent ? d->sent[i] : cts_poison_byte(i);
}

unsigned char cts_dev_tensor_back_byte(const cts_dev_tensor *d, size_t i)
{
    return d->back ? d->back[i] : cts_dev_tensor_sent_byte(d, i);
}

/* The encoding loops compiled for x86-64-v4, AVX2 and the baseline, the one the CPU runs
 * chosen at load: integer operations and exact conversions, the same bits in any lane.
 * -DCTS_ENCODE_NO_CLONES keeps the baseline alone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(CTS_ENCODE_NO_CLONES)
#define ENCODE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define ENCODE_CLONES
#endif

/* fp16_bits without branches, so a loop of it runs over whole vectors (test_encode_runs holds
 * the two equal on every FP16 value), in 32-bit lanes: an FP16 value is a FLOAT exactly, whose
 * bits shifted right by 13 are a normal one's FP16 bits with the exponent biased by 127
 * instead of 15; a subnormal's are |x|·2^24 (exact); each form is computed, the magnitude
 * choosing (a lane that is not subnormal converts 0, so every conversion stays in range). */
static inline uint16_t fp16_bits_lanes(double x)
{
    float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    uint32_t mag = b & 0x7fffffffu, sign = b >> 16 & 0x8000u;
    const uint32_t least = 0x38800000u, inf = 0x7f800000u; /* 2^-14 and inf as FLOAT bits */
    uint32_t normal = (mag >> 13) - ((127u - 15u) << 10);
    /* the choices as masks: GCC 12 turned their ?: back into branches in the AVX2 clone */
    uint32_t is_small = 0u - (mag < least), is_nan = 0u - (mag > inf);
    uint32_t is_big = 0u - (mag >= inf), is_normal = 0u - (mag >= least);
    uint32_t ab = mag & is_small; /* |f|, or +0 */
    float a;
    memcpy(&a, &ab, sizeof a);
    uint32_t small = (uint32_t)(int32_t)(a * 0x1p24f);
    uint32_t big = (is_nan & 0x7e00u) | (~is_nan & (sign | 0x7c00u));
    uint32_t fin = sign | (is_normal & normal) | (~is_normal & small);
    return (uint16_t)((is_big & big) | (~is_big & fin));
}

ENCODE_CLONES static void encode_fp32_run(const double *x, int64_t n, unsigned char *dst)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        float f = (float)x[i]; /* exact */
        memcpy(dst + 4 * i, &f, 4);
    }
}

ENCODE_CLONES static void encode_fp16_run(const double *x, int64_t n, unsigned char *dst)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        uint16_t h = fp16_bits_lanes(x[i]);
        memcpy(dst + 2 * i, &h, 2);
    }
}

ENCODE_CLONES static void encode_bf16_run(const double *x, int64_t n, unsigned char *dst)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        uint16_t h = bf16_bits(x[i]);
        memcpy(dst + 2 * i, &h, 2);
    }
}

/* x[0..n-1], values of dt already (no rounding left to do), into consecutive elements at dst,
 * the dtype tested once: FLOAT, FLOAT16 and BF16 (the vendor's inputs); false for the others. */
static bool encode_held_run(ref_dtype dt, const double *x, int64_t n, unsigned char *dst)
{
    switch (dt) {
    case REF_DT_FLOAT: encode_fp32_run(x, n, dst); return true;
    case REF_DT_FLOAT16: encode_fp16_run(x, n, dst); return true;
    case REF_DT_BF16: encode_bf16_run(x, n, dst); return true;
    default: return false;
    }
}

/* x, a value of dt already, into one element. */
static void encode_held(ref_dtype dt, double x, unsigned char *dst)
{
    if (!encode_held_run(dt, &x, 1, dst)) cts_encode(dt, x, dst);
}

/* The next 8 bytes at p as a little-endian word */
static inline uint64_t word_at(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* The lanes are four locals: as an array indexed in a loop, GCC kept them on the stack, each
 * step a load and a store behind the last (tools/bench-piece-hash). */
uint64_t cts_piece_hash(const unsigned char *p, size_t n)
{
    uint64_t h0 = 0x243f6a8885a308d3ull, h1 = 0x13198a2e03707344ull;
    uint64_t h2 = 0xa4093822299f31d0ull, h3 = 0x082efa98ec4e6c89ull;
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        h0 = (h0 ^ word_at(p + i)) * k;
        h1 = (h1 ^ word_at(p + i + 8)) * k;
        h2 = (h2 ^ word_at(p + i + 16)) * k;
        h3 = (h3 ^ word_at(p + i + 24)) * k;
    }
    for (; i < n; i++) h0 = (h0 ^ p[i]) * k;
    uint64_t r = n;
    r = (r ^ h0 ^ (h0 >> 29)) * k;
    r = (r ^ h1 ^ (h1 >> 29)) * k;
    r = (r ^ h2 ^ (h2 >> 29)) * k;
    return (r ^ h3 ^ (h3 >> 29)) * k;
}

/* The pieces a dropped image is hashed in: the bytes of PIECE_ELEMS storage elements each, the
 * first with the guard before the data, the last with the guard after it; so a plain image's
 * piece is what encode_sent's piece p writes, hashed there while in cache. */
static size_t hash_pieces(const cts_dev_tensor *d)
{
    size_t span = PIECE_ELEMS * d->esize, data = (size_t)d->storage * d->esize;
    return data > span ? (data + span - 1) / span : 1;
}

/* Piece p's first byte and its length */
static size_t piece_at(const cts_dev_tensor *d, size_t p, size_t *len)
{
    size_t span = PIECE_ELEMS * d->esize, last = hash_pieces(d) - 1;
    size_t from = p == 0 ? 0 : CTS_GUARD_BYTES + p * span;
    *len = (p == last ? d->bytes : CTS_GUARD_BYTES + (p + 1) * span) - from;
    return from;
}

static uint64_t image_piece_hash(const cts_dev_tensor *d, const unsigned char *img, size_t p)
{
    size_t len, at = piece_at(d, p, &len);
    return cts_piece_hash(img + at, len);
}

/* Elements k0 .. k0 + m - 1 of the fill into the sent image through buf (m doubles). */
static void encode_piece(cts_dev_tensor *d, cts_fill_fn fill, void *ctx, bool held, int64_t k0,
                         int64_t m, double *buf)
{
    unsigned char *data = d->sent + CTS_GUARD_BYTES;
    int64_t es = (int64_t)d->esize;
    bool plain = cts_dev_tensor_plain(d);
    fill(ctx, k0, m, buf);
    if (plain && held && encode_held_run(d->t->dtype, buf, m, data + k0 * es))
        return;
    for (int64_t i = 0; i < m; i++) {
        unsigned char *dst = data + (plain ? k0 + i : cts_dev_tensor_pos(d, k0 + i)) * es;
        if (held) encode_held(d->t->dtype, buf[i], dst);
        else cts_encode(d->t->dtype, buf[i], dst);
    }
}

/* The sent image: poison, then the fill's values at the view positions in index order (an
 * overlapping view keeps the last write, as the device sees it). held: the fill's values are
 * already values of the dtype. A view without overlap (plain) is filled by all threads, piece
 * by piece: the fill is a function of the element index, so the image is the same. */
static int encode_sent(cts_dev_tensor *d, cts_fill_fn fill, void *ctx, bool held)
{
    if (!(d->sent = cts_malloc_written(d->bytes))) return CTS_OUT_OF_MEMORY;
    size_t data_end = CTS_GUARD_BYTES + (size_t)d->numel * d->esize;
    if (cts_dev_tensor_plain(d) && d->storage == d->numel) {
        /* every data byte is written below: poison the guard zones only (one pass over the
         * image fewer) */
        poison_fill(d->sent, CTS_GUARD_BYTES);
        for (size_t i = data_end; i < d->bytes; i++) d->sent[i] = cts_poison_byte(i);
    } else {
        poison_fill(d->sent, d->bytes);
    }
    int64_t pieces = (d->numel + PIECE_ELEMS - 1) / PIECE_ELEMS;
    bool oom = false;
    /* a plain image's pieces are hash_pieces': each hashed as soon as it is written */
    free(d->made_hash);
    d->made_hash = cts_dev_tensor_plain(d) && d->storage == d->numel && pieces > 0
                       ? malloc((size_t)pieces * sizeof *d->made_hash)
                       : NULL;
#pragma omp parallel if (cts_dev_tensor_plain(d) && pieces > 1) reduction(|| : oom)
    {
        double *buf = malloc((size_t)PIECE_ELEMS * sizeof *buf);
        oom = !buf;
#pragma omp for schedule(static)
        for (int64_t p = 0; p < pieces; p++) {
            int64_t k0 = p * PIECE_ELEMS;
            if (buf)
                encode_piece(d, fill, ctx, held, k0,
                             d->numel - k0 < PIECE_ELEMS ? d->numel - k0 : PIECE_ELEMS, buf);
            if (buf && d->made_hash) d->made_hash[p] = image_piece_hash(d, d->sent, (size_t)p);
        }
        free(buf);
    }
    return oom ? CTS_OUT_OF_MEMORY : 0;
}

int cts_dev_tensor_prepare_fill(cts_dev_tensor *d, const cts_tensor *t, int slot,
                                cts_fill_fn fill, void *ctx)
{
    if (cts_dev_tensor_layout(d, t, slot) != 0) return -1;
    if (t->is_output || !fill) return 0;
    d->fill = fill;
    d->fill_ctx = ctx;
    return encode_sent(d, fill, ctx, true);
}

int cts_dev_tensor_prepare_like(cts_dev_tensor *d, const cts_tensor *t, int slot,
                                const cts_dev_tensor *like)
{
    if (cts_dev_tensor_layout(d, t, slot) != 0) return -1;
    if (!like->sent) return 0;
    if (!(d->sent = cts_malloc_written(d->bytes))) return CTS_OUT_OF_MEMORY;
    memcpy(d->sent, like->sent, d->bytes);
    return 0;
}

static void fill_from_array(void *ctx, int64_t first, int64_t n, double *out)
{
    memcpy(out, (const double *)ctx + first, (size_t)n * sizeof *out);
}

int cts_dev_tensor_prepare(cts_dev_tensor *d, const cts_tensor *t, int slot, double *values)
{
    if (cts_dev_tensor_layout(d, t, slot) != 0) {
        free(values);
        return -1;
    }
    int rc = values ? encode_sent(d, fill_from_array, values, false)
             : (d->sent = cts_malloc_written(d->bytes)) ? 0 : CTS_OUT_OF_MEMORY;
    if (rc == 0 && !values) poison_fill(d->sent, d->bytes);
    if (rc != 0 || !(d->back = cts_malloc_written(d->bytes))) {
        free(values);
        return CTS_OUT_OF_MEMORY;
    }
    memcpy(d->back, d->sent, d->bytes);
    if (!values) {
        d->values = calloc((size_t)(d->numel > 0 ? d->numel : 1), sizeof(double));
        return d->values ? 0 : CTS_OUT_OF_MEMORY;
    }
    d->values = values;
    cts_dev_tensor_decode(d, d->sent, 0, d->numel, values);
    return 0;
}

/* The poison copied to the device piece by piece from one piece of it. */
static aclError upload_poison(const cts_backend *b, cts_dev_tensor *d)
{
    size_t piece = d->bytes < PIECE_BYTES ? d->bytes : PIECE_BYTES;
    unsigned char *buf = malloc(piece ? piece : 1);
    if (!buf) return ACL_ERROR_BAD_ALLOC;
    poison_fill(buf, piece);
    aclError e = ACL_SUCCESS;
    for (size_t off = 0; off < d->bytes && e == ACL_SUCCESS; off += piece) {
        size_t n = d->bytes - off < piece ? d->bytes - off : piece;
        e = b->aclrtMemcpy((unsigned char *)d->dev + off, d->bytes - off, buf, n,
                           ACL_MEMCPY_HOST_TO_DEVICE);
    }
    free(buf);
    return e;
}

/* Once uploaded, an image the fill can make again goes, a hash of each piece kept (none when
 * their array does not fit: the image stays): those taken as it was made, else hashed now. */
static void drop_sent(cts_dev_tensor *d)
{
    uint64_t *made = d->made_hash;
    d->made_hash = NULL;
    if (!d->fill || !d->sent) {
        free(made);
        return;
    }
    if (!(d->sent_hash = made ? made : malloc(hash_pieces(d) * sizeof *d->sent_hash))) return;
    for (size_t p = 0; !made && p < hash_pieces(d); p++)
        d->sent_hash[p] = image_piece_hash(d, d->sent, p);
    free(d->sent);
    d->sent = NULL;
}

int cts_dev_tensor_upload(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen)
{
    aclError e = b->aclrtMalloc(&d->dev, d->bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (e != ACL_SUCCESS || !d->dev) {
        d->dev = NULL;
        snprintf(err, errlen, "aclrtMalloc(%zu bytes) for %s failed with %d%s", d->bytes,
                 d->t->name, e, e == ACL_ERROR_BAD_ALLOC ? " (out of device memory)" : "");
        return e == ACL_ERROR_BAD_ALLOC ? CTS_OUT_OF_MEMORY : -1;
    }
    e = d->sent ? b->aclrtMemcpy(d->dev, d->bytes, d->sent, d->bytes, ACL_MEMCPY_HOST_TO_DEVICE)
                : upload_poison(b, d);
    if (e != ACL_SUCCESS) {
        snprintf(err, errlen, "aclrtMemcpy to the device for %s failed with %d", d->t->name, e);
        return -1;
    }
    drop_sent(d);
    return cts_dev_tensor_attach(b, d, (unsigned char *)d->dev + CTS_GUARD_BYTES, err, errlen);
}

int cts_dev_tensor_attach(const cts_backend *b, cts_dev_tensor *d, void *data, char *err,
                          size_t errlen)
{
    if (d->t->null) return 0;
    const cts_tensor *t = d->t;
    bool plain = !t->has_strides && t->offset == 0;
    int64_t storage_dims[1] = {d->acl_storage ? d->acl_storage : d->storage};
    d->acl = b->aclCreateTensor(t->dims, (uint64_t)t->rank, (aclDataType)t->dtype, d->strides,
                                t->offset, (aclFormat)t->format, plain ? t->dims : storage_dims,
                                plain ? (uint64_t)t->rank : 1, data);
    if (!d->acl) {
        snprintf(err, errlen, "aclCreateTensor returned NULL for %s", t->name);
        return -1;
    }
    return 0;
}

int cts_dev_tensor_download(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen)
{
    d->back_same = false;
    if (!d->back && !(d->back = cts_malloc_written(d->bytes))) {
        snprintf(err, errlen, "out of host memory for the image of %s", d->t->name);
        return CTS_OUT_OF_MEMORY;
    }
    aclError e = b->aclrtMemcpy(d->back, d->bytes, d->dev, d->bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    if (e != ACL_SUCCESS) {
        snprintf(err, errlen, "aclrtMemcpy from the device for %s failed with %d", d->t->name, e);
        return -1;
    }
    return 0;
}

/* Whether bytes [off, off + n) of the sent image are p. */
static bool same_as_sent(const cts_dev_tensor *d, size_t off, const unsigned char *p, size_t n)
{
    if (d->sent) return memcmp(d->sent + off, p, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != cts_poison_byte(off + i)) return false;
    return true;
}

/* download_input of a dropped image: the device's bytes whole, kept as `sent` when every
 * piece hashes as sent, else as `back` with `sent` made again from the fill. */
static int restore_sent(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen)
{
    unsigned char *img = cts_malloc_written(d->bytes);
    if (!img) {
        snprintf(err, errlen, "out of host memory reading %s back", d->t->name);
        return CTS_OUT_OF_MEMORY;
    }
    aclError e = b->aclrtMemcpy(img, d->bytes, d->dev, d->bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    if (e != ACL_SUCCESS) {
        free(img);
        snprintf(err, errlen, "aclrtMemcpy from the device for %s failed with %d", d->t->name, e);
        return -1;
    }
    bool same = true;
    for (size_t p = 0; p < hash_pieces(d) && same; p++)
        same = image_piece_hash(d, img, p) == d->sent_hash[p];
    free(d->sent_hash);
    d->sent_hash = NULL;
    free(d->back);
    d->back = NULL;
    d->back_same = same;
    if (same) {
        d->sent = img;
        return 0;
    }
    d->back = img;
    if (encode_sent(d, d->fill, d->fill_ctx, true) == 0) return 0;
    snprintf(err, errlen, "out of host memory for the image of %s", d->t->name);
    return CTS_OUT_OF_MEMORY;
}

int cts_dev_tensor_download_input(const cts_backend *b, cts_dev_tensor *d, char *err,
                                  size_t errlen)
{
    if (d->sent_hash) return restore_sent(b, d, err, errlen);
    size_t piece = d->bytes < PIECE_BYTES ? d->bytes : PIECE_BYTES;
    unsigned char *buf = malloc(piece ? piece : 1);
    if (!buf) {
        snprintf(err, errlen, "out of host memory reading %s back", d->t->name);
        return CTS_OUT_OF_MEMORY;
    }
    bool same = true;
    for (size_t off = 0; off < d->bytes && same; off += piece) {
        size_t n = d->bytes - off < piece ? d->bytes - off : piece;
        aclError e = b->aclrtMemcpy(buf, piece, (unsigned char *)d->dev + off, n,
                                    ACL_MEMCPY_DEVICE_TO_HOST);
        if (e != ACL_SUCCESS) {
            free(buf);
            snprintf(err, errlen, "aclrtMemcpy from the device for %s failed with %d",
                     d->t->name, e);
            return -1;
        }
        same = same_as_sent(d, off, buf, n);
    }
    free(buf);
    if (!same) return cts_dev_tensor_download(b, d, err, errlen);
    free(d->back);
    d->back = NULL;
    d->back_same = true;
    return 0;
}

/* The loops of decode_run compiled twice, for AVX2 and the baseline, the one the CPU runs chosen
 * when the program loads: the same values either way (each is exact). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DECODE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DECODE_CLONES
#endif

/* n FP16 elements: fp16_value without branches, so the loop runs over vector lanes. A normal
 * one is its bits moved into an FP32's place with the exponent rebiased (+112); a subnormal one
 * its integer significand times 2^-24 (exact; no subnormal FP32 operand, which x86 takes a slow
 * microcode assist on); infinities keep their sign, every NaN is the one positive NaN. */
DECODE_CLONES static void decode_fp16(const unsigned char *src, int64_t n, double *out)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, src + 2 * i, 2);
        uint32_t mag = h & 0x7fffu, sign = (uint32_t)(h & 0x8000u) << 16;
        float sub = (float)(int32_t)mag * 0x1p-24f;
        uint32_t sub_bits, normal = (mag << 13) + (112u << 23);
        memcpy(&sub_bits, &sub, 4);
        uint32_t is_sub = -(uint32_t)(mag < 0x400u), is_big = -(uint32_t)(mag >= 0x7c00u);
        uint32_t is_nan = -(uint32_t)(mag > 0x7c00u);
        uint32_t b = (sub_bits & is_sub) | (normal & ~(is_sub | is_big)) |
                     ((0x7f800000u | (0x00400000u & is_nan)) & is_big);
        b |= sign & ~is_nan;
        float f;
        memcpy(&f, &b, 4);
        out[i] = f;
    }
}

/* n FP32 or BF16 (the top half of an FP32) elements. */
DECODE_CLONES static void decode_fp32(const unsigned char *src, int64_t n, double *out)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        float f;
        memcpy(&f, src + 4 * i, 4);
        out[i] = f;
    }
}

DECODE_CLONES static void decode_bf16(const unsigned char *src, int64_t n, double *out)
{
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, src + 2 * i, 2);
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        out[i] = f;
    }
}

bool cts_decode_no_f16c;

#if DECODE_F16C
/* decode_fp16 by the CPU's own conversion (F16C's vcvtph2ps, exact like fp16_value), eight
 * elements an instruction: 0.36-0.48 of decode_fp16's CPU in chunk-sized pieces, 0.82 out of
 * cache (tools/bench-decode). Its NaNs keep sign and payload, so a NaN lane takes the one
 * positive NaN, as decode_fp16 gives it. */
__attribute__((target("avx2,f16c"))) static void decode_fp16_f16c(const unsigned char *src,
                                                                  int64_t n, double *out)
{
    const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + 2 * i)));
        f = _mm256_blendv_ps(f, nan, _mm256_cmp_ps(f, f, _CMP_UNORD_Q));
        _mm256_storeu_pd(out + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(out + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    decode_fp16(src + 2 * i, n - i, out + i);
}
#endif

/* decode_fp16, by F16C where the CPU has it */
static void decode_fp16_fastest(const unsigned char *src, int64_t n, double *out)
{
#if DECODE_F16C
    if (!cts_decode_no_f16c && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) {
        decode_fp16_f16c(src, n, out);
        return;
    }
#endif
    decode_fp16(src, n, out);
}

/* n FP32, FP16 or BF16 elements from src: the dtype tested once, not per element (the judge
 * decodes every output element of a case). False for the other dtypes. */
static bool decode_run(ref_dtype dt, const unsigned char *src, int64_t n, double *out)
{
    switch (dt) {
    case REF_DT_FLOAT: decode_fp32(src, n, out); return true;
    case REF_DT_FLOAT16: decode_fp16_fastest(src, n, out); return true;
    case REF_DT_BF16: decode_bf16(src, n, out); return true;
    default: return false;
    }
}

void cts_dev_tensor_decode(const cts_dev_tensor *d, const unsigned char *img, int64_t first,
                           int64_t n, double *out)
{
    const unsigned char *data = img + CTS_GUARD_BYTES;
    int64_t es = (int64_t)d->esize;
    if (cts_dev_tensor_plain(d)) {
        if (!decode_run(d->t->dtype, data + first * es, n, out))
            for (int64_t i = 0; i < n; i++) out[i] = cts_decode(d->t->dtype, data + (first + i) * es);
    } else
        for (int64_t i = 0; i < n; i++)
            out[i] = cts_decode(d->t->dtype, data + cts_dev_tensor_pos(d, first + i) * es);
}

void cts_dev_tensor_read_back(const cts_dev_tensor *d, double *out)
{
    cts_dev_tensor_decode(d, d->back, 0, d->numel, out);
}

void cts_dev_tensor_release(const cts_backend *b, cts_dev_tensor *d)
{
    if (d->acl) b->aclDestroyTensor(d->acl);
    if (d->dev) b->aclrtFree(d->dev);
    d->acl = NULL;
    d->dev = NULL;
}

void cts_dev_tensor_free(const cts_backend *b, cts_dev_tensor *d)
{
    if (b) cts_dev_tensor_release(b, d);
    free(d->sent);
    free(d->back);
    free(d->values);
    free(d->sent_hash);
    free(d->made_hash);
    d->sent_hash = d->made_hash = NULL;
    d->sent = d->back = NULL;
    d->back_same = false;
    d->values = NULL;
}

const char *cts_multi_index(int rank, const int64_t *dims, int64_t k, char *buf, size_t size)
{
    int64_t idx[CTS_MAX_DIMS];
    for (int i = rank - 1; i >= 0; i--) {
        int64_t n = dims[i] > 0 ? dims[i] : 1;
        idx[i] = k % n;
        k /= n;
    }
    size_t len = 0;
    len += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? "," : "", (long long)idx[i]);
    if (len < size) snprintf(buf + len, size - len, "]");
    return buf;
}
