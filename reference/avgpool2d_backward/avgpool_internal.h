/* Private to reference/avgpool2d_backward/: the window geometry the exact values and the
 * documented path share, the one global-pooling predicate, the status rules the doc and vendor
 * readings share (status_avgpool_rules.c), and what the model table's entry (avgpool_model.c)
 * calls. */
#ifndef ACLCTS_REFERENCE_AVGPOOL_INTERNAL_H_
#define ACLCTS_REFERENCE_AVGPOOL_INTERNAL_H_

#include "ref_internal.h"
#include "reference_avgpool2d_backward.h"

/* Avg-pool window o of one axis (s stride, pad padding, k kernel, in input length): the clipped
 * range [*a, *b) and *full, its length counting padding (facts §4). */
void ref_avgpool_window(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t in, int64_t *a,
                        int64_t *b, int64_t *full);

/* Global pooling as the documents name it: the kernel covers self's H×W, no padding, no
 * divisorOverride. It selects the 950's cube lowering (ref_avgpool_path) and limits the
 * cubeMathType rules on the 950 (the doc status model). */
static inline bool ref_avgpool_global_pooling(int64_t kh, int64_t kw, int64_t h, int64_t w,
                                              int64_t ph, int64_t pw, int64_t divisor_override)
{
    return kh == h && kw == w && ph == 0 && pw == 0 && divisor_override == 0;
}

/* Global pooling as the vendor's lowering tests it (docs/contract.md A10, L1): divisorOverride
 * 0, the kernel covers self's H×W with both >= 10, gradOutput 1×1; padding is not looked at. It
 * skips the vendor's later checks (status_vendor_avgpool2d_backward.c) and divides
 * (ref_avgpool_vendor_path). */
static inline bool ref_avgpool_vendor_global(int64_t kh, int64_t kw, int64_t h, int64_t w,
                                             int64_t oh, int64_t ow, int64_t divisor_override)
{
    return divisor_override == 0 && kh == h && kw == w && h >= 10 && w >= 10 && oh == 1 && ow == 1;
}

/* Whether the vendor's lowering of a non-global call takes the cube (L3 on 910b/910_93, L4 on
 * 910/310p and on 950 in 8.5) rather than a vector kernel (ref_avgpool_vendor_path). */
bool ref_avgpool_vendor_cube(ref_spec spec, ref_product product, const ref_avgpool_params *p);

/* The status models' names of t[0..2]: gradOutput, self, gradInput. */
extern const char *const ref_avgpool_tensor_names[3];
/* gradOutput, self, kernelSize, padding, gradInput present (stride may be NULL): else 161001. */
bool ref_status_avgpool_pointers_ok(const ref_status_query *q, ref_status *fail);
/* A known product the op ships on (all but the Atlas 200I/500 A2): else 161002. */
bool ref_status_avgpool_product_ok(const ref_status_query *q, ref_status *fail);
/* The int8_t the device receives for the widened cubeMathType (reference_avgpool2d_backward.h). */
int64_t ref_status_avgpool_cube_math_type(const ref_status_query *q);
/* That value in 0..3: else 161002 (161001 under vendor-old). */
bool ref_status_avgpool_cube_range_ok(const ref_status_query *q, ref_status *fail);

/* The status of the first phase under the documents (status_avgpool2d_backward.c) and under
 * the vendor releases (status_vendor_avgpool2d_backward.c). */
ref_status ref_status_avgpool2d_backward(const ref_status_query *q);
ref_status ref_status_vendor_avgpool2d_backward(const ref_status_query *q);

/* The geometry and parameters of q as the operator reads its arguments (geometry 0 for ranks it
 * refuses). */
void ref_avgpool_params_of(const ref_status_query *q, ref_avgpool_params *p);

/* The streams behind ref_case and the whole-output calls: grad_input's chunks in element order
 * (slot REF_AVGPOOL_GRAD_INPUT). 0, -1 (bad parameters or out of memory: errno), or the sink's
 * non-zero value. */
int ref_avgpool_stream(const ref_avgpool_params *p, const double *grad_output, ref_options *opt,
                       const ref_sink *s);
int ref_avgpool_documented_stream(const ref_avgpool_params *p, const double *grad_output,
                                  const ref_path *path, const ref_sink *s);

/* ---- the driver's tables and context (avgpool2d_backward.c, avgpool_lanes.c) ---- */

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* Per input index of one axis, the windows covering it in ascending o: built once per call so
 * the per-element gathering does no division. At most cap = min(ceil(k/s), on) windows cover an
 * index: the kernel size alone (65536, 2^40) must not size the tables. */
typedef struct { int64_t o, full, len; } axis_win;
/* Slots past an index's count hold {0, 0, 0} (a valid window row to load, ignored). */
typedef struct { int64_t cap; int32_t *cnt; axis_win *w; } axis_tab;

#define POOL_BLOCK 1024 /* elements per scheduled piece, at most */

/* How avgpool_lanes_row covers the lanes 0 .. n − 1 of a row piece: affine groups (lanes k,
 * k + sw, k + 2·sw, k + 3·sw), gathered groups of any four lanes, and the lanes no window covers
 * (left to the caller). The same for every row: built once per call for whole rows. */
typedef struct {
    int32_t k, nw;      /* lanes k + l·sw, l < 4; nw windows along w each (lane 3: nw − 1 if short) */
    int64_t o0, o1;     /* the first and last of lane k's (gradOutput columns) */
    double dw[4];       /* pool_tabs.dw of the four lanes */
    bool short_last;    /* AFF_SHORT: lane 3 lacks the last window */
    bool new_dw, new_nw; /* dw, nw or short_last differ from the previous group's (the first: set) */
} aff_group;
typedef struct {
    int32_t naff, ngat;
    aff_group aff[POOL_BLOCK];
    int32_t gat[POOL_BLOCK / 4 + 1][4];
    uint64_t empty[POOL_BLOCK / 64];
} lanes_plan;

/* pool_tabs.aff[iw]: columns iw + k·sw (k < 4) are no affine group, one (AFF_FULL: as many
 * windows each, at least one, window j of column iw + k·sw being window j of iw shifted by k), or
 * one whose last lane lacks the last window (AFF_SHORT: the right edge of a residue's run, where
 * window o1 + 3 is past the row; iw has at least two windows, the lanes 1 and 2 all of them). */
enum { AFF_NONE, AFF_FULL, AFF_SHORT };

/* Both axes; dh[ih], dw[iw]: the divisor factor (full or len, as countIncludePad says) every
 * window covering row ih, column iw shares, NaN when they differ or none covers it; aff: the
 * affine groups (AFF_*, avgpool_lanes.c); row: the plan of a whole row (NULL when a row is
 * longer than POOL_BLOCK). */
typedef struct { axis_tab h, w; double *dh, *dw; uint8_t *aff; lanes_plan *row; } pool_tabs;

/* Per-thread scratch of the driver: the terms of one element (dv: divisors as doubles), and
 * RN(1/dlast) of the last divisor seen (one division for a run of equal ones). */
typedef struct {
    double *g, *dv;
    i128 *d;
    double dlast, inv;
} pool_scratch;

/* What one call's elements share. */
typedef struct {
    const ref_avgpool_params *p;
    const pool_tabs *T;
    const double *go;
    const ref_options *opt;
    double overflow_at; /* ref_path_overflow_at(&opt->path) */
    bool small;         /* every divisor of the call is at most 2^53 in magnitude */
    /* per plane plane0 + j of the elements in hand, regular[j]: 0 not known yet, else 1 + its
     * avgpool_plane_kind; whichever thread first reaches a plane fills it in */
    uint8_t *regular;
    int64_t plane0;
} pool_ctx;

/* What plane `plane` of gradOutput lets avgpool_lanes_row do. PLANE_REGULAR: answer its
 * elements, every value being finite, below 2^15 in magnitude (no operand overflows, no sum
 * reaches the path's range) and, when not 0, at least 2^-847 (no quotient near the subnormal
 * range). PLANE_EXACT: besides, every sum of at most T->h.cap·T->w.cap of its values is exact
 * in any order (so no two-sum error needs computing): each value has at most 24 significant
 * bits (a float32's), hence is a multiple of 2^(e_min − 23) (e_min the least exponent of a
 * non-zero value), and the count times 2^(e_max + 1) bounding the partial sums is at most
 * 2^(e_min + 30): below 2^53 units; and e_min ≥ PLANE_EXACT_EMIN, so no quotient is near the
 * fast path's exponent limit (REF_FAST_EMIN: avgpool_lanes.c's answer4 skips that test). */
enum { PLANE_IRREGULAR, PLANE_REGULAR, PLANE_EXACT };
#define PLANE_EXACT_EMIN (-700)
int avgpool_plane_kind(const pool_ctx *C, int64_t plane);

/* The plan of the row piece of columns iw .. iw + n − 1 (n ≤ POOL_BLOCK): columns of one
 * residue modulo the stride as affine groups of four where pool_tabs.aff has them, the other
 * columns some window covers as gathered groups of four (the last padded with a repeated lane). */
void avgpool_lanes_plan(const pool_tabs *T, int64_t sw, int64_t iw, int64_t n, lanes_plan *L);

/* The answers of elements iw .. iw + n − 1 (n ≤ POOL_BLOCK, L their plan) of row ih of a regular
 * plane (gradOutput plane gp; exact: PLANE_EXACT) whose windows along h (wh[0..nh), nh > 0)
 * share the divisor factor dh (or a divisorOverride), as element_small in avgpool2d_backward.c
 * gives them when it decides them directly (one divisor, Σg exact, ref_decide_quotient), into
 * v[0..n) (their flags stay 0) and, ph not NULL, their plain_hi into ph[0..n) (reference.h),
 * one 4-lane vector per group (affine groups load four consecutive gradOutput values per term).
 * Lanes it does not answer come back set in the bitmap todo (its words for n lanes written). */
void avgpool_lanes_row(const pool_ctx *C, const lanes_plan *L, const double *gp, bool exact,
                       const axis_win *wh, int nh, double dh, int64_t iw, int64_t n, ref_value *v,
                       float *ph, uint64_t *todo);

#endif
