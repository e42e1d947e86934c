/* Window geometry of one axis (facts §4, PyTorch's pooling_output_shape and the backward's
 * window rule). */
#include <stdlib.h>

#include "avgpool2d_backward.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t avgpool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode)
{
    int64_t num, last;
    if (__builtin_add_overflow(in, p, &num) || __builtin_add_overflow(num, p, &num) ||
        __builtin_sub_overflow(num, k, &num) ||
        (ceil_mode && __builtin_add_overflow(num, s - 1, &num))) {
        return -1;
    }
    int64_t out = floor_div(num, s) + 1;
    /* With ceil, the last window must start inside the input or its left padding. */
    if (ceil_mode && out > 0 &&
        (__builtin_mul_overflow(out - 1, s, &last) || last >= in + p)) {
        out--;
    }
    return out;
}

bool avgpool_is_global(const avgpool_window *win, int64_t h, int64_t w, int64_t divisor)
{
    return win->kh == h && win->kw == w && win->ph == 0 && win->pw == 0 && divisor == 0;
}

void avgpool_axis_free(avgpool_axis *ax)
{
    free(ax->start);
    ax->start = ax->end = ax->pool = ax->lo = ax->hi = NULL;
}

bool avgpool_axis_init(avgpool_axis *ax, int64_t n_in, int64_t n_out, int64_t k, int64_t s,
                       int64_t p, int64_t extra)
{
    ax->n_in = n_in;
    ax->n_out = n_out;
    /* One block: start, end, pool per output; lo, hi per input. */
    ax->start = malloc(sizeof(int64_t) * (size_t)(3 * n_out + 2 * n_in + 1));
    if (ax->start == NULL) {
        return false;
    }
    ax->end = ax->start + n_out;
    ax->pool = ax->end + n_out;
    ax->lo = ax->pool + n_out;
    ax->hi = ax->lo + n_in;
    for (int64_t i = 0; i < n_in; i++) {
        ax->lo[i] = n_out;
        ax->hi[i] = 0;
    }
    for (int64_t o = 0; o < n_out; o++) {
        int64_t h0 = o * s - p;
        /* h0 + k + extra saturated at the padded end (k may be near INT64_MAX) */
        int64_t h1 = n_in + p, end;
        if (!__builtin_add_overflow(h0, k, &end) && !__builtin_add_overflow(end, extra, &end) &&
            end < h1) {
            h1 = end;
        }
        ax->pool[o] = h1 - h0;
        ax->start[o] = h0 > 0 ? h0 : 0;
        ax->end[o] = h1 < n_in ? h1 : n_in;
        /* Windows start and end in non-decreasing order, so the outputs covering an input form
         * one contiguous range [lo, hi). */
        for (int64_t i = ax->start[o]; i < ax->end[o]; i++) {
            if (o < ax->lo[i]) {
                ax->lo[i] = o;
            }
            ax->hi[i] = o + 1;
        }
    }
    for (int64_t i = 0; i < n_in; i++) {
        if (ax->hi[i] == 0) {
            ax->lo[i] = 0; /* no window: empty range */
        }
    }
    return true;
}
