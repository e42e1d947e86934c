/* Checks 7 and 8: shapes, then empty tensors. gradOutput must have self's leading dims and the
 * forward output size of facts §4 (derived from PyTorch's shape check); self and gradInput have
 * equal shapes. */
#include "avgpool2d_backward.h"

static bool has_zero_dim(const aclTensor *t)
{
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] == 0) {
            return true;
        }
    }
    return false;
}

bool avgpool_any_empty(const avgpool_args *a)
{
    return has_zero_dim(a->grad_output) || has_zero_dim(a->self) || has_zero_dim(a->grad_input);
}

aclnnStatus avgpool_check_shapes(const avgpool_args *a, const avgpool_window *win,
                                 avgpool_params *p)
{
    const aclTensor *t[3] = {a->grad_output, a->self, a->grad_input};
    const char *name[3] = {"gradOutput", "self", "gradInput"};
    char s0[160], s1[160];
    for (int i = 0; i < 3; i++) {
        for (uint64_t d = 0; d < t[i]->ndim; d++) {
            if (t[i]->dims[d] < 0) {
                emu_set_error("%s has shape %s: dims must not be negative", name[i],
                              emu_shape_str(t[i], s0, sizeof s0));
                return ACLNN_ERR_PARAM_INVALID;
            }
        }
    }
    const aclTensor *self = a->self, *go = a->grad_output;
    for (uint64_t d = 0; d < self->ndim; d++) {
        if (self->dims[d] != a->grad_input->dims[d]) {
            emu_set_error("self has shape %s while gradInput has %s: they must be equal",
                          emu_shape_str(self, s0, sizeof s0),
                          emu_shape_str(a->grad_input, s1, sizeof s1));
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    int64_t lead = (int64_t)self->ndim - 2;
    int64_t h = self->dims[lead], w = self->dims[lead + 1];
    int64_t oh = avgpool_output_size(h, win->kh, win->sh, win->ph, a->ceil_mode);
    int64_t ow = avgpool_output_size(w, win->kw, win->sw, win->pw, a->ceil_mode);
    if (has_zero_dim(self)) {
        /* An empty input may have an empty output; step 8 decides whether that is legal. */
        oh = oh < 0 ? 0 : oh;
        ow = ow < 0 ? 0 : ow;
    } else if (oh < 1 || ow < 1) {
        emu_set_error("self has shape %s: with kernelSize (%lld, %lld), stride (%lld, %lld), "
                      "padding (%lld, %lld) the forward output size (%lld, %lld) must be >= 1",
                      emu_shape_str(self, s0, sizeof s0), (long long)win->kh, (long long)win->kw,
                      (long long)win->sh, (long long)win->sw, (long long)win->ph,
                      (long long)win->pw, (long long)oh, (long long)ow);
        return ACLNN_ERR_PARAM_INVALID;
    }
    bool ok = true;
    for (int64_t d = 0; d < lead; d++) {
        ok = ok && go->dims[d] == self->dims[d];
    }
    ok = ok && go->dims[lead] == oh && go->dims[lead + 1] == ow;
    if (!ok) {
        emu_set_error("gradOutput has shape %s: for self %s it must keep self's leading dims and "
                      "have the forward output size (%lld, %lld)",
                      emu_shape_str(go, s0, sizeof s0), emu_shape_str(self, s1, sizeof s1),
                      (long long)oh, (long long)ow);
        return ACLNN_ERR_PARAM_INVALID;
    }
    p->lead = lead;
    p->planes = 1;
    for (int64_t d = 0; d < lead; d++) {
        p->planes *= self->dims[d];
    }
    p->h = h;
    p->w = w;
    p->oh = oh;
    p->ow = ow;
    p->win = *win;
    return ACLNN_SUCCESS;
}
