/* ref_avgpool2d_backward_documented: the exact value of the cube computation as docs/contract.md
 * "Path" documents it, for judging whether a device honours the operand rounding its
 * cubeMathType fixes. The `bound` policy judges against the exact value Σ g/div with a window
 * that covers any operand rounding, so a device that skips the down-conversion (and is then more
 * accurate) passes; here each term is r(g)·r(w), w = 1/div, both operands rounded to the path's
 * format with nearest-even (facts §5), and the sum is exact (MPFR), so the only legal error is
 * the FP32 accumulation's and the output's rounding.
 *
 * Every r(g)·r(w) is exact in double (two significands of at most 24 bits, exponents far inside
 * double's range), so the terms go to mpfr_sum as they are. */
#include <stdlib.h>

#include "avgpool_internal.h"

/* One operand rounded to the path's operand format. */
static double operand(const ref_path *path, double x)
{
    if (path->hf32) {
        /* FP32's exponent range, so below 2^-126 the quantum stays 2^(-126-(bits-1)) (facts §5,
         * derived); overflow is left out, as the exact sum of the terms needs no infinity. */
        ref_prec f = ref_operand_prec(path);
        return ref_round_bits_emin(x, f.bits, f.emin);
    }
    return ref_round_to(x, path->operand);
}

/* Divisor of the window pair (oh, ow) by the rules of facts §4. */
static int64_t divisor(const ref_avgpool_params *p, int64_t full_h, int64_t len_h, int64_t full_w,
                       int64_t len_w)
{
    if (p->divisor_override) return p->divisor_override;
    return p->count_include_pad ? full_h * full_w : len_h * len_w;
}

/* Windows of one axis that cover input index i: o in [*lo, *hi), each checked by the rule. */
static void covering(int64_t i, int64_t s, int64_t pad, int64_t k, int64_t on, int64_t *lo,
                     int64_t *hi)
{
    int64_t first = (i + pad - k) / s - 1, last = (i + pad) / s + 1;
    *lo = first < 0 ? 0 : first;
    *hi = last + 1 < on ? last + 1 : on;
}

typedef struct {
    mpfr_ptr *terms; /* cap + 1 slots: ref_finish_mpfr_sum uses one more */
    mpfr_t *store;
    int64_t cap;
} term_buf;

static int term_buf_init(term_buf *b, int64_t cap)
{
    b->cap = cap;
    b->terms = malloc((size_t)(cap + 1) * sizeof *b->terms);
    b->store = malloc((size_t)cap * sizeof *b->store);
    if (!b->terms || !b->store) {
        free(b->terms);
        free(b->store);
        *b = (term_buf){0};
        return -1;
    }
    for (int64_t i = 0; i < cap; i++) {
        mpfr_init2(b->store[i], 53);
        b->terms[i] = b->store[i];
    }
    return 0;
}

static void term_buf_free(term_buf *b)
{
    if (b->store)
        for (int64_t i = 0; i < b->cap; i++) mpfr_clear(b->store[i]);
    free(b->store);
    free(b->terms);
}

/* Element (plane, ih, iw): its documented terms, summed exactly into *v. */
static void element(const ref_avgpool_params *p, const ref_path *path, const double *gp,
                    int64_t ih, int64_t iw, term_buf *b, ref_value *v, uint8_t *flags)
{
    int64_t n = 0, h0, h1, w0, w1;
    double plain = 0, sum_abs = 0, min_w = INFINITY;
    covering(ih, p->sh, p->ph, p->kh, p->oh, &h0, &h1);
    covering(iw, p->sw, p->pw, p->kw, p->ow, &w0, &w1);
    for (int64_t oh = h0; oh < h1; oh++) {
        int64_t ah, bh, fh;
        ref_avgpool_window(oh, p->sh, p->ph, p->kh, p->h, &ah, &bh, &fh);
        if (ih < ah || ih >= bh) continue;
        for (int64_t ow = w0; ow < w1; ow++) {
            int64_t aw, bw, fw;
            ref_avgpool_window(ow, p->sw, p->pw, p->kw, p->w, &aw, &bw, &fw);
            if (iw < aw || iw >= bw || n >= b->cap) continue;
            double w, t, r = 1.0 / (double)divisor(p, fh, bh - ah, fw, bw - aw);
            if (path->premul) { /* the vendor's g·w in FP32 (FP16), then the operand */
                ref_dtype pt = path->premul_fp16 ? REF_DT_FLOAT16 : REF_DT_FLOAT;
                w = ref_round_to(r, pt);
                t = operand(path, ref_round_to(gp[oh * p->ow + ow] * w, pt));
            } else {
                w = operand(path, r);
                t = operand(path, gp[oh * p->ow + ow]) * w;
            }
            mpfr_set_d(b->store[n++], t, MPFR_RNDN); /* exact: t is a double */
            plain += t;
            sum_abs += fabs(t);
            min_w = fabs(w) < min_w ? fabs(w) : min_w;
        }
    }
    *v = (ref_value){.nterms = n, .nops = 1, .sum_abs = sum_abs * (1 + 0x1p-50),
                     .min_weight = n ? min_w : 0};
    if (!isfinite(plain)) { /* NaN/Inf operands propagate as IEEE says */
        v->hi = plain;
        *flags |= REF_FLAG_NONFINITE;
        return;
    }
    ref_finish_mpfr_sum(b->terms, (unsigned long)n, &v->hi, &v->lo, NULL);
    if (n < b->cap) b->terms[n] = b->store[n]; /* it borrowed slot n */
}

static bool params_ok(const ref_avgpool_params *p)
{
    return !(p->n < 0 || p->c < 0 || p->h < 0 || p->w < 0 || p->oh < 0 || p->ow < 0 ||
             p->kh <= 0 || p->kw <= 0 || p->sh <= 0 || p->sw <= 0 || p->ph < 0 || p->pw < 0);
}

/* Elements first .. first + out->numel − 1 into out (indexed from 0). */
static int range(const ref_avgpool_params *p, const double *grad_output, const ref_path *path,
                 int64_t first, ref_output *out)
{
    int64_t plane = p->h * p->w;
    /* at most ceil(k/s) windows of an axis, and no more than it has, cover an index */
    int64_t cap_h = p->kh / p->sh + 2, cap_w = p->kw / p->sw + 2;
    int64_t cap = (cap_h < p->oh ? cap_h : p->oh) * (cap_w < p->ow ? cap_w : p->ow);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        term_buf b = {0};
        failed = term_buf_init(&b, cap) != 0;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < out->numel; i++) {
            if (failed) continue;
            int64_t k = first + i;
            const double *gp = grad_output + k / plane * p->oh * p->ow;
            element(p, path, gp, k % plane / p->w, k % p->w, &b, &out->v[i], &out->flags[i]);
        }
        term_buf_free(&b);
    }
    return failed ? -1 : 0;
}

int ref_avgpool_documented_stream(const ref_avgpool_params *p, const double *grad_output,
                                  const ref_path *path, const ref_sink *s)
{
    if (path->kind != REF_PATH_CUBE) {
        ref_options opt = {.path = *path};
        return ref_avgpool_stream(p, grad_output, &opt, s);
    }
    if (!params_ok(p)) return -1;
    int64_t numel = p->n * p->c * p->h * p->w;
    int64_t step = s->elems > 0 ? s->elems : REF_AVGPOOL_CHUNK_ELEMS;
    ref_chunkbuf b = {0};
    int rc = ref_chunkbuf_init(&b, numel < step ? numel : step);
    for (int64_t first = 0; rc == 0 && first < numel; first += step) {
        ref_chunkbuf_start(&b, numel - first < step ? numel - first : step);
        rc = range(p, grad_output, path, first, &b.o);
        if (rc == 0) rc = ref_emit(s, 2, first, &b);
    }
    ref_chunkbuf_free(&b);
    return rc;
}

int ref_avgpool2d_backward_documented(const ref_avgpool_params *p, const double *grad_output,
                                      const ref_path *path, ref_output *gi)
{
    if (path->kind != REF_PATH_CUBE) {
        ref_options opt = {.path = *path};
        return ref_avgpool2d_backward(p, grad_output, &opt, gi);
    }
    if (!params_ok(p)) return -1;
    if (ref_output_alloc(gi, p->n * p->c * p->h * p->w) != 0) return -1;
    if (range(p, grad_output, path, 0, gi) != 0) { /* one chunk: the whole output */
        ref_output_free(gi);
        return -1;
    }
    return 0;
}

ref_path ref_documented_judge_path(const ref_path *path)
{
    if (path->kind != REF_PATH_CUBE) return *path;
    /* One literal per entry (parenthesized: adjacent literals in an initializer list look
     * like a missing comma to clang). */
    static const char *const names[] = {
        ("cube-fp16 judged on its documented operands: gradOutput and 1/divisor rounded to "
         "FP16, so an error beyond the FP32 accumulation's own means the device skipped or "
         "changed that rounding"),
        ("cube-bf16 judged on its documented operands: gradOutput and 1/divisor rounded to "
         "BF16, so an error beyond the FP32 accumulation's own means the device skipped or "
         "changed that rounding"),
        ("cube-hf32 judged on its documented operands: gradOutput and 1/divisor rounded to "
         "HF32, so an error beyond the FP32 accumulation's own means the device skipped or "
         "changed that rounding"),
        ("cube-fp32 judged on its documented operands: FLOAT kept (KEEP_DTYPE), so an error "
         "beyond the FP32 accumulation's own means the device down-converted them"),
    };
    int i = path->hf32 ? 2 : path->operand == REF_DT_FLOAT16 ? 0 : path->operand == REF_DT_BF16 ? 1 : 3;
    ref_path j = {.kind = REF_PATH_VECTOR, .operand = REF_DT_UNDEFINED, .name = names[i]};
    j.result_fp16 = path->result_fp16; /* a rounding after the sum stays to be allowed for */
    return j;
}
