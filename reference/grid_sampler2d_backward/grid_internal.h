/* Private to reference/grid_sampler2d_backward/: the grid sampler's per-axis coordinate stage,
 * shared by the fast and MPFR paths so both take identical branch decisions, and the status
 * rules the doc and vendor readings share (status_grid_rules.c). */
#ifndef ACLCTS_GRID_INTERNAL_H_
#define ACLCTS_GRID_INTERNAL_H_

#include "ref_internal.h"
#include "reference_grid_sampler2d_backward.h"

#define GRID_MAXO 12 /* legal outcomes kept per axis; more makes the point uncheckable */

/* One way a device may treat one axis: PyTorch's branches (reflection sign and flips, clip,
 * floor or nearest index) taken for some coordinate within the device's error of the exact one.
 * The device coordinate on that branch is c = a·t + b (t the exact unnormalised coordinate). */
typedef struct {
    int a, mult;      /* a ∈ {-1,0,1}; mult = gin_clip·gin_refl ∈ {-1,0,1} */
    double b;         /* half-integer */
    int64_t i0;       /* floor(c) (bilinear) or nearbyint(c) (nearest) */
    bool far;         /* reflection: flips rounded up below a fold (dx discontinuity) */
    bool mp;          /* w holds the weights; else they are exactly d0.hi + d0.lo, ... */
    bool dd_inexact;  /* hi + lo ≠ w for d0 or d1 (w − hi needs more bits than lo, or lies
                       * below the subnormals, e.g. w = 1/2 + 2^-1075): no fast path */
    mpfr_ptr w;       /* mp: w[0], w[1] (allocated, grid_axis_clear frees them) the bilinear
                       * weights i0 + 1 − c and c − i0, exact; out of line, so a point of
                       * GRID_MAXO outcomes per axis stays small (fewer pages to touch) */
    ref_dd d0, d1;    /* the same as double-doubles: hi = RN(w), lo = RN(w − hi) */
} grid_outcome;

typedef struct {
    int n;            /* outcomes, o[0] the exact coordinate's own */
    bool unresolvable;
    double delta;     /* device coordinate error bound (t units) */
    double sens;      /* max |a| over outcomes: |∂c/∂t| for the coordinate error term */
    grid_outcome *o;  /* &first, or from a second outcome on an allocated array of GRID_MAXO
                       * (grid_axis_clear frees it): most axes have one outcome, and a batch's
                       * points stay compact. A grid_axis is not copied (o may point into it). */
    grid_outcome first;
} grid_axis;

/* MPFR scratch of grid_axis_eval, initialised where it is first needed (live): most points
 * never need it, and an OpenMP thread's first allocation makes the allocator set up an arena
 * for that thread (part of a process's first call). Starts as {.live = false}. */
typedef struct {
    mpfr_t t;
    bool live;
} grid_scratch;
void grid_scratch_clear(grid_scratch *s);

/* The device's coordinate arithmetic: the unit roundoff of its working format (u_dev), and the
 * format it rounds the unnormalised coordinate, the results of its padding and the clip bound
 * to (ref_path coord_u, coord_eta, coord_max; 0: none). */
typedef struct {
    double u_dev, u_coord, eta_coord, max_coord;
} grid_coord_fmt;

__extension__ typedef __int128 i128;

/* The exact unnormalised coordinate of grid value x (finite) on an axis of `size` as an integer
 * over a power of two, T / 2^S: ((x + 1)·(size − 1))/2 under alignCorners, else ((x + 1)·size
 * − 1)/2, from x = X / 2^K exactly (S = K + 1). False where |x| ≥ max_abs, x has a bit below
 * 2^-max_k or size ≥ 2^31: the caller's limits keep T within its own arithmetic. */
bool grid_coord_int(double x, int64_t size, bool align, double max_abs, int max_k, i128 *T,
                    int *S);

/* Evaluates one axis of grid value x (finite) for an input axis of `size`, the device's
 * coordinate computed in format f. With use_int, the exact coordinate is held as
 * a 128-bit integer over a power of two where it fits (no MPFR; the outcomes then have
 * mp = false), else in MPFR (s's scratch): both give the same outcomes and d0, d1. */
void grid_axis_eval(grid_axis *ax, double x, int64_t size, const ref_grid_params *p,
                    const grid_coord_fmt *f, grid_scratch *s, bool use_int);
void grid_axis_clear(grid_axis *ax);
/* t ← t · (weight k of o), exactly (t's precision is raised as needed). */
void grid_weight_mul(mpfr_ptr t, const grid_outcome *o, int k);

/* Bicubic (grid_bicubic.c): ref_grid_stream and the one-element MPFR value for
 * interpolationMode 2, all in MPFR; out has any precision (the sum is rounded to it). */
int grid_bicubic_stream(const ref_grid_params *p, const double *grad_output, const double *input,
                        const double *grid, ref_options *opt, bool dx, bool dgrid,
                        const ref_sink *s);
int grid_bicubic_element_mpfr(const ref_grid_params *p, const double *grad_output,
                              const double *input, const double *grid, int which, int64_t index,
                              mpfr_ptr out);

/* The status models' names of t[0..4]: gradOutput, input, grid, inputGrad, gridGrad. */
extern const char *const ref_grid_tensor_names[5];
/* A known product the op ships on (not the Atlas inference products nor the 200I/500 A2):
 * else 161002. */
bool ref_status_grid_product_ok(const ref_status_query *q, ref_status *fail);
/* The grid sampler's interpolationMode 0..1 and paddingMode 0..2: the documents' rule, and
 * every release's but for bicubic (mode 2) from 9.1, which the vendor reading accepts before
 * calling this; false with *fail set when either is out of range. */
bool ref_status_grid_modes_ok(const ref_status_query *q, ref_status *fail);

/* The status of the first phase under the documents (status_grid_sampler2d_backward.c) and
 * under the vendor releases (status_vendor_grid_sampler2d_backward.c). */
ref_status ref_status_grid_sampler2d_backward(const ref_status_query *q);
ref_status ref_status_vendor_grid_sampler2d_backward(const ref_status_query *q);

/* The stream behind ref_case and the whole-output call: slot REF_GRID_INPUT_GRAD (when dx), then
 * REF_GRID_GRID_GRAD (when dgrid), each output's chunks in element order. With both outputs it
 * makes them in one pass over the batches (its coordinate stage once) when grid_grad has at most
 * REF_GRID_STASH_MAX elements, kept until input_grad's last chunk; else one pass per output. 0,
 * -1 (bad parameters or out of memory: errno), or the sink's non-zero value. */
#define REF_GRID_STASH_MAX ((int64_t)1 << 18)
int ref_grid_stream(const ref_grid_params *p, const double *grad_output, const double *input,
                    const double *grid, ref_options *opt, bool dx, bool dgrid, const ref_sink *s);
/* ref_grid_stream under the documents (grid_doc_nonfinite.c): a non-finite coordinate under
 * border or reflection also has PyTorch's clamp as legal answers (alternatives), for cases of
 * up to 2^16 output elements; ref_grid_doc_work_bytes: the memory that takes. */
int ref_grid_stream_doc(const ref_grid_params *p, const double *grad_output, const double *input,
                        const double *grid, ref_options *opt, bool dx, bool dgrid,
                        const ref_sink *s);
uint64_t ref_grid_doc_work_bytes(const ref_grid_params *p);
/* A sink that hands on each chunk with some elements changed (grid_vendor_bicubic.c):
 * GRID_MARK_NAN makes an element's answer NaN, GRID_MARK_UNJUDGED leaves it unjudged; a
 * changed chunk is copied into buf. */
enum { GRID_MARK_NAN = 1, GRID_MARK_UNJUDGED = 2 };
typedef struct {
    const ref_sink *down;
    ref_chunkbuf buf;
    bool live;
} grid_marked_sink;
int grid_emit_marked(grid_marked_sink *m, const ref_chunk *ch, const uint8_t *marks);
void grid_marked_sink_free(grid_marked_sink *m);
/* Which bicubic kernel of a vendor release (9.1, 9.2) computes a call, for the coordinates it
 * reads its own way (grid_vendor_bicubic.c): none (the exact model: the AICPU task, the
 * documents), the vector kernel, or 950's SIMT kernel. */
typedef enum { GRID_BC_EXACT, GRID_BC_VECTOR, GRID_BC_SIMT } grid_bc_kernel;
/* ref_grid_stream with kernel k's reading of non-finite coordinates and coordinates past the
 * int32 range (dtype: the case's); ref_grid_vendor_bicubic_work_bytes: its memory besides the
 * stream's, for chunks of `chunk` elements. */
int ref_grid_stream_vendor_bicubic(const ref_grid_params *p, grid_bc_kernel k, ref_dtype dtype,
                                   const double *go, const double *in, const double *grid,
                                   ref_options *opt, bool dx, bool dgrid, const ref_sink *s);
uint64_t ref_grid_vendor_bicubic_work_bytes(const ref_grid_params *p, int64_t chunk);
/* Bicubic's working set besides its chunks (grid_bicubic.c): a batch's points with their exact
 * coefficients, the reach lists, and per thread the terms of one element. */
uint64_t ref_grid_bicubic_work_bytes(const ref_grid_params *p, int threads);

/* 950's SIMT kernel's input_grad sums for FLOAT16 and BF16 from 9.0 (grid_simt_sums.c): a sink
 * that hands on each input_grad chunk with every answer's allowance widened by the contributions'
 * roundings to the dtype (r: more of them from 9.1) and their sums in it, and REF_FLAG_RANGE
 * where a partial sum may pass the dtype's range; grid_grad's by r's roundings of its factor.
 * Z->sink is the sink to stream into. */
typedef struct {
    int term_rounds;     /* roundings to the dtype of each input_grad term's factors (9.1's
                          * bilinear weight, a product in the dtype: 1) */
    double g_max;        /* max |gradOutput|: such a weight below the dtype's normal range
                          * errs by η·|g| */
    int dgrid_rounds;    /* relative roundings to the dtype of grid_grad (9.1's multiplier
                          * static_cast<T>(size)/2: 1) */
} grid_simt_rounds;
typedef struct {
    const ref_sink *down;
    ref_sink sink;
    double u, eta, ovf;  /* the dtype's unit roundoff, half its least subnormal, overflow */
    int term_rounds, dgrid_rounds;
    double term_eta;     /* η·g_max, from the weights */
    ref_value *v, *alts; /* a chunk's answers and alternatives, widened */
    uint8_t *flags;
    int64_t cap_v, cap_a;
} grid_simt_sums;
void grid_simt_sums_init(grid_simt_sums *Z, ref_dtype dtype, const grid_simt_rounds *r,
                         const ref_sink *down);
void grid_simt_sums_free(grid_simt_sums *Z);
/* Its memory besides the stream's, for chunks of `chunk` elements. */
uint64_t grid_simt_sums_work_bytes(int64_t chunk);

#endif
