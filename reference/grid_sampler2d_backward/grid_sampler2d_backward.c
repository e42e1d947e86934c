/* ref_grid_sampler2d_backward and its one-element MPFR form (facts §4, PyTorch's
 * grid_sampler_2d_backward). Per batch: the coordinate stage of every grid point (grid_axis.c,
 * exact, with its legal branches), then dgrid per grid point and dx per (n, c) plane, each plane
 * gathered in grid-point order (deterministic for any thread count).
 * Terms: dx[yi][xi] gets g·wx·wy per in-bounds corner (nearest: g); dgrid x gets
 * ±input[corner]·g·wy·(factor·mult) and y likewise with wx (PyTorch's gix/giy), factor = size/2
 * (size−1)/2 with align). Fast path: coordinates in exact integer form (grid_axis.c), terms as
 * exact double pairs where the products split exactly, else double-double with error bound,
 * summed by two-word error-free sums; dgrid as Σ_k ±w_k·scale·(Σ_c val·g) over the corners k
 * (a batch read channel-innermost, so a corner's channels are consecutive; one pass per point
 * for both components; four points at once in vector lanes for the common one-outcome lean
 * case), dx per element from a per-batch list of the terms reaching it, four
 * planes at once; Ziv's test; MPFR on failure, the exact terms summed by mpfr_sum. Every bound
 * field (Σ|terms|, magnitudes, coordinate term) is summed in one fixed order, channel then
 * corner (dgrid) or point (dx), whichever path computes it, so answers do not depend on it. nops = 4 (bilinear: two weight differences and two
 * products per dx term; difference, two products and the final scale per dgrid term).
 * coord_err = Σ|∂term/∂t|·δ over the terms: dx |g|(|wy|δx + |wx|δy + δxδy), dgrid x
 * |val·g·scale|·δy (y: δx), with |∂c/∂t| ≤ sens. */
#include "grid_values.h"

int ref_grid_sampler2d_backward(const ref_grid_params *p, const double *grad_output,
                                const double *input, const double *grid, ref_options *opt,
                                ref_output *input_grad, ref_output *grid_grad)
{
    if (!p || !params_ok(p))
        return -1;
    ref_options dflt = {0};
    if (!opt)
        opt = &dflt;
    int64_t nx = p->n * p->c * p->h_in * p->w_in, ng = p->n * p->h_out * p->w_out * 2;
    if (input_grad && ref_output_alloc(input_grad, nx) != 0)
        return -1;
    if (grid_grad && ref_output_alloc(grid_grad, ng) != 0) {
        ref_output_free(input_grad);
        return -1;
    }
    /* grid_grad is small (two values per point): its interval offsets always exist */
    if (grid_grad && !(grid_grad->ival = ref_big_alloc((size_t)(ng ? 2 * ng : 2), sizeof(double), true))) {
        ref_output_free(input_grad);
        ref_output_free(grid_grad);
        return -1;
    }
    /* whole batches per chunk, gathered into the outputs */
    ref_output *outs[REF_MAX_SLOTS] = {NULL, NULL, NULL, input_grad, grid_grad};
    ref_sink s = {ref_collect_chunk, outs, nx > 0 ? nx : 1};
    int rc = ref_grid_stream(p, grad_output, input, grid, opt, input_grad != NULL,
                             grid_grad != NULL, &s);
    if (rc) {
        ref_output_free(input_grad);
        ref_output_free(grid_grad);
    }
    return rc;
}

int ref_grid_sampler2d_backward_element_mpfr(const ref_grid_params *p, const double *grad_output,
                                             const double *input, const double *grid, int which,
                                             int64_t index, void *mpfr_out)
{
    if (!p || !params_ok(p) || (which != 0 && which != 1))
        return -1;
    if (p->interpolation == REF_INTERP_BICUBIC)
        return grid_bicubic_element_mpfr(p, grad_output, input, grid, which, index,
                                         (mpfr_ptr)mpfr_out);
    int64_t hw_out = p->h_out * p->w_out, hw_in = p->h_in * p->w_in;
    ref_path vec = ref_grid_path(REF_DT_FLOAT);
    gctx G = {p, grad_output, input, grid, {0x1p-24, 0, 0, 0}, true, &vec,
              ref_path_overflow_at(&vec)};
    grid_scratch t = {.live = false};
    mterms mt = {0};
    int rc = 0;
    if (which == 1) {
        if (index < 0 || index >= p->n * hw_out * 2) {
            rc = -1;
        } else {
            int64_t n = index / 2 / hw_out, pix = index / 2 % hw_out;
            int comp = (int)(index % 2);
            gpoint pt;
            grid_point_eval(&G, n, pix, &pt, &t);
            mpfr_set_zero((mpfr_ptr)mpfr_out, 1);
            if (!pt.out && !pt.unres && p->interpolation == REF_INTERP_BILINEAR) {
                const grid_outcome *ox = &pt.ax[0].o[0], *oy = &pt.ax[1].o[0];
                const grid_outcome *ow = comp == 0 ? oy : ox;
                double scale = factor(p, comp) * (comp == 0 ? ox->mult : oy->mult);
                corner cs[4];
                int nc = corners(p, ox, oy, cs);
                for (int64_t c = 0; c < p->c; c++)
                    for (int k = 0; k < nc; k++) {
                        double val = input[(n * p->c + c) * hw_in + cs[k].e];
                        double g = grad_output[(n * p->c + c) * hw_out + pix];
                        int sign = (comp == 0 ? cs[k].kx : cs[k].ky) ? 1 : -1;
                        mpfr_ptr tt = grid_mterm(&mt, 2);
                        mpfr_set_ui(tt, 1, MPFR_RNDN);
                        grid_weight_mul(tt, ow, comp == 0 ? cs[k].ky : cs[k].kx);
                        mpfr_prec_round(tt, mpfr_get_prec(tt) + 3 * 53 + 8, MPFR_RNDN);
                        mpfr_mul_d(tt, tt, val, MPFR_RNDN);
                        mpfr_mul_d(tt, tt, g, MPFR_RNDN);
                        mpfr_mul_d(tt, tt, sign * scale, MPFR_RNDN);
                    }
                mpfr_sum((mpfr_ptr)mpfr_out, mt.ptr, (unsigned long)mt.n, MPFR_RNDN);
            }
            grid_axis_clear(&pt.ax[0]);
            grid_axis_clear(&pt.ax[1]);
        }
    } else if (index < 0 || index >= p->n * p->c * hw_in) {
        rc = -1;
    } else {
        int64_t e = index % hw_in, c = index / hw_in % p->c, n = index / hw_in / p->c;
        ref_value v = {0};
        for (int64_t pix = 0; pix < hw_out; pix++) {
            gpoint pt;
            grid_point_eval(&G, n, pix, &pt, &t);
            if (!pt.out && !pt.unres)
                grid_dx_point_mpfr(&G, &pt.ax[0].o[0], &pt.ax[1].o[0],
                                   grad_output[(n * p->c + c) * hw_out + pix], e, &mt, &v);
            grid_axis_clear(&pt.ax[0]);
            grid_axis_clear(&pt.ax[1]);
        }
        mpfr_sum((mpfr_ptr)mpfr_out, mt.ptr, (unsigned long)mt.n, MPFR_RNDN);
    }
    grid_scratch_clear(&t);
    grid_mterms_free(&mt);
    return rc;
}
