// The executor of the torch backend: torch computes in the first phase (so its errors are
// first-phase statuses, as CANN reports parameter errors); the second phase copies the held
// results into the output views through the emulated device's shared launch.
#include <ATen/MemoryOverlap.h>

#include "torch_adapter.h"

namespace aclcts_torch {

namespace {

struct DeferredCopy {
    const char *api;
    at::Tensor results[2];
    aclTensor *outputs[2];
};

std::string shape_str(at::IntArrayRef sizes)
{
    std::string s = "[";
    for (size_t i = 0; i < sizes.size(); i++)
        s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s + "]";
}

void free_deferred(void *params) { delete static_cast<DeferredCopy *>(params); }

aclnnStatus run_deferred(aclOpExecutor *self, void * /*workspace*/)
{
    DeferredCopy *d = static_cast<DeferredCopy *>(self->params);
    for (int i = 0; i < 2; i++) {
        if (!d->results[i].defined() || d->results[i].numel() == 0)
            continue;
        try {
            at::Tensor view;
            aclnnStatus rc = torch_view(d->api, "an output", d->outputs[i], &view);
            if (rc != ACLNN_SUCCESS)
                return rc;
            view.copy_(d->results[i]);
        } catch (const std::exception &e) {
            torch_error(d->api, e);
            return ACLNN_ERR_INNER;
        }
    }
    return ACLNN_SUCCESS;
}

} // namespace

aclnnStatus torch_deferred_executor(const char *api, const char *op_name,
                                    const char *const names[2],
                                    const at::Tensor results[2], aclTensor *const outputs[2],
                                    const aclTensor *const inputs[4], aclOpExecutor **executor)
{
    for (int i = 0; i < 2; i++) {
        if (!results[i].defined())
            continue;
        at::Tensor view;
        aclnnStatus rc = torch_view(api, names[i], outputs[i], &view);
        if (rc != ACLNN_SUCCESS)
            return rc;
        // The outputs play torch's out= arguments, whose storage cannot be resized here.
        if (view.scalar_type() != results[i].scalar_type() || view.sizes() != results[i].sizes()) {
            emu_set_error("%s: %s is %s %s but torch's result is %s %s", api, names[i],
                          c10::toString(view.scalar_type()), shape_str(view.sizes()).c_str(),
                          c10::toString(results[i].scalar_type()),
                          shape_str(results[i].sizes()).c_str());
            return ACLNN_ERR_PARAM_INVALID;
        }
        at::assert_no_internal_overlap(view);
    }
    DeferredCopy *d = new DeferredCopy{op_name, {results[0], results[1]}, {outputs[0], outputs[1]}};
    aclOpExecutor *e = emu_executor_new(op_name, 0, run_deferred, free_deferred, d);
    if (!e) {
        delete d;
        emu_set_error("%s: out of memory", api);
        return ACLNN_ERR_INNER;
    }
    for (int i = 0; i < 4; i++)
        e->inputs[i] = inputs[i];
    for (int i = 0; i < 2; i++)
        e->outputs[i] = results[i].defined() ? outputs[i] : nullptr;
    *executor = e;
    return ACLNN_SUCCESS;
}

} // namespace aclcts_torch
