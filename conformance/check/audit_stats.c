/* Bins, quantiles and grid codes of the per-element statistics (check.h). */
#include "check.h"
#include "check_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

int cts_stat_bin(double x) { return stat_bin(x); }

double cts_stat_bin_upper(int b)
{
    if (b <= 0) return 0;
    if (b >= CTS_STAT_BINS - 2) return INFINITY;
    int i = b == 1 ? IMIN : b - 2 + IMIN + 1;
    return ldexp(i % 2 ? M_SQRT2 : 1.0, (i - (i % 2 ? 1 : 0)) / 2);
}

void cts_elem_stats_add(cts_elem_stats *s, const double err[CTS_STAT_METRICS],
                        const bool meets[CTS_STAT_STANDARDS])
{
    elem_stats_add(s, err, meets);
}

void cts_elem_stats_add_zeros(cts_elem_stats *s, int64_t n)
{
    s->n += n;
    for (int m = 0; m < CTS_STAT_METRICS; m++) s->hist[m][0] += (uint32_t)n;
    for (int k = 0; k < CTS_STAT_STANDARDS; k++) s->meets[k] += n;
}

double cts_stat_quantile(const int64_t hist[CTS_STAT_BINS], int64_t n, double max, double p)
{
    if (n <= 0) return NAN;
    int64_t rank = (int64_t)ceil(p * (double)n), seen = 0;
    if (rank < 1) rank = 1;
    for (int b = 0; b < CTS_STAT_BINS; b++) {
        seen += hist[b];
        if (seen >= rank) {
            double up = cts_stat_bin_upper(b);
            return up < max ? up : max;
        }
    }
    return max;
}

#define GRID_OFF 161

uint8_t cts_grid_code(double x)
{
    if (isnan(x)) return 255;
    if (x == INFINITY) return 254;
    if (x <= 0) return 0;
    double c = ceil(4 * log2(x)) + GRID_OFF;
    return (uint8_t)(c < 1 ? 1 : c > 253 ? 253 : c);
}

double cts_grid_value(uint8_t code)
{
    if (code == 255) return NAN;
    if (code == 254) return INFINITY;
    if (code == 0) return 0;
    return exp2((code - GRID_OFF) / 4.0);
}
