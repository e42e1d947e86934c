/* Private: the grid sampler's per-axis coordinate stage, shared by the fast and MPFR paths so
 * both take identical branch decisions. */
#ifndef ACLCTS_GRID_INTERNAL_H_
#define ACLCTS_GRID_INTERNAL_H_

#include "ref_internal.h"

#define GRID_MAXO 12 /* legal outcomes kept per axis; more makes the point uncheckable */

/* One way a device may treat one axis: PyTorch's branches (reflection sign and flips, clip,
 * floor or nearest index) taken for some coordinate within the device's error of the exact one.
 * The device coordinate on that branch is c = a·t + b (t the exact unnormalised coordinate). */
typedef struct {
    int a, mult;      /* a ∈ {-1,0,1}; mult = gin_clip·gin_refl ∈ {-1,0,1} */
    double b;         /* half-integer */
    int64_t i0;       /* floor(c) (bilinear) or nearbyint(c) (nearest) */
    bool far;         /* reflection: flips rounded up below a fold (dx discontinuity) */
    mpfr_t w0, w1;    /* bilinear: i0 + 1 − c and c − i0, exact */
    ref_dd d0, d1;    /* the same as double-doubles (within 2u²) */
} grid_outcome;

typedef struct {
    int n;            /* outcomes, o[0] the exact coordinate's own */
    bool unresolvable;
    double delta;     /* device coordinate error bound (t units) */
    double sens;      /* max |a| over outcomes: |∂c/∂t| for the coordinate error term */
    grid_outcome o[GRID_MAXO];
} grid_axis;

/* Evaluates one axis of grid value x (finite) for an input axis of `size`. u_dev is the unit
 * roundoff of the device's coordinate arithmetic. t is scratch. */
void grid_axis_eval(grid_axis *ax, double x, int64_t size, const ref_grid_params *p, double u_dev,
                    mpfr_t t);
void grid_axis_clear(grid_axis *ax);

#endif
