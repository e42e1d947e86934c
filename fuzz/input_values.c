/* Input values of a fuzzed call: a seeded stream (xorshift64*) per tensor slot, so the bytes
 * stay small and the describe mode can list the exact values sent. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_call.h"

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

static double unit(uint64_t *s) { return (double)(next(s) >> 11) * 0x1p-53; } /* [0, 1) */

static const double SPECIALS[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e30, -3e38, 1e-41, 65504};

double *fuzz_input_values(const fuzz_call *fc, int slot, int64_t numel)
{
    double *v = malloc((size_t)(numel > 0 ? numel : 1) * sizeof *v);
    if (!v) return NULL;
    uint64_t s = ((uint64_t)fc->data_seed << 8 | (uint64_t)slot) * 0x9e3779b97f4a7c15ull + 1;
    bool grid = fc->c.op->tensors[slot].coordinates;
    double scale = grid ? 1.25 : 4.0;
    for (int64_t k = 0; k < numel; k++) {
        double u = unit(&s);
        switch (fc->values) {
        case FUZZ_VALUES_INTS:
            v[k] = grid ? floor(u * 11) / 4 - 1.25 : floor(u * 17) - 8;
            break;
        case FUZZ_VALUES_SPECIAL:
            v[k] = next(&s) % 8 == 0 ? SPECIALS[next(&s) % 9] : (2 * u - 1) * scale;
            break;
        case FUZZ_VALUES_WIDE:
            v[k] = ldexp(2 * u - 1, (int)(next(&s) % 61) - 30);
            break;
        default:
            v[k] = (2 * u - 1) * scale;
        }
        /* Integer dtypes only appear in calls the operators reject; keep their values where a
         * conversion to int64 is defined (conformance's cts_encode casts without a range
         * check, which UBSan reports for 1e30). */
        ref_dtype dt = fc->c.t[slot].dtype;
        bool floating = dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16 || dt == REF_DT_BF16 ||
                        dt == REF_DT_DOUBLE;
        if (!floating && !(fabs(v[k]) < 0x1p62)) v[k] = 0;
    }
    return v;
}
