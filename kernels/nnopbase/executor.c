/* Executors and the shared second phase, where the generic faults act. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nnopbase.h"

aclOpExecutor *emu_executor_new(const char *op_name, uint64_t workspace_size,
                                aclnnStatus (*run)(aclOpExecutor *, void *),
                                void (*free_params)(void *), void *params)
{
    aclOpExecutor *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->magic = EMU_MAGIC_EXECUTOR;
    e->op_name = op_name;
    e->workspace_size = workspace_size;
    e->run = run;
    e->free_params = free_params;
    e->params = params;
    emu_registry_add(e, EMU_MAGIC_EXECUTOR);
    return e;
}

static void executor_free(aclOpExecutor *e)
{
    if (e->free_params)
        e->free_params(e->params);
    e->magic = EMU_MAGIC_DEAD;
    free(e);
}

/* Byte range [lo, hi) the view of t touches in its storage; false when it touches nothing. */
static bool tensor_extent(const aclTensor *t, char **lo, char **hi)
{
    if (emu_tensor_numel(t) == 0)
        return false;
    int64_t min = t->offset, max = t->offset;
    for (uint64_t i = 0; i < t->ndim; i++) {
        int64_t span = (t->dims[i] - 1) * t->strides[i];
        if (span < 0)
            min += span;
        else
            max += span;
    }
    int64_t size = (int64_t)emu_dtype_size(t->dtype);
    *lo = (char *)t->data + min * size;
    *hi = (char *)t->data + (max + 1) * size;
    return true;
}

/* Every tensor the run touches must lie in device memory, as a real kernel's DMA requires. */
static aclnnStatus check_memory(const char *api, const aclOpExecutor *e)
{
    const aclTensor *all[6] = {e->inputs[0], e->inputs[1], e->inputs[2], e->inputs[3],
                               e->outputs[0], e->outputs[1]};
    for (int i = 0; i < 6; i++) {
        char *lo, *hi;
        if (!all[i] || !tensor_extent(all[i], &lo, &hi))
            continue;
        if (!all[i]->data ||
            !emu_is_device_range(lo, (size_t)(hi - lo))) {
            emu_set_error("%s: a tensor's data [%p, %p) is not inside one device allocation "
                          "(aclrtMalloc)", api, (void *)lo, (void *)hi);
            return ACLNN_ERR_RUNTIME_ERROR;
        }
    }
    return ACLNN_SUCCESS;
}

/* ulp:N moves every third element of each output by N ULPs. */
static void fault_ulp(const aclOpExecutor *e)
{
    int n = emu_fault_ulps();
    for (int o = 0; o < 2; o++) {
        const aclTensor *t = e->outputs[o];
        if (!t)
            continue;
        int64_t numel = emu_tensor_numel(t);
        for (int64_t i = 0; i < numel; i += 3)
            emu_store(t, i, emu_nudge_ulps(emu_load(t, i), t->dtype, n));
    }
}

static void fault_oob_write(const aclOpExecutor *e)
{
    for (int o = 0; o < 2; o++) {
        char *lo, *hi;
        if (e->outputs[o] && tensor_extent(e->outputs[o], &lo, &hi)) {
            memset(hi, 0x5a, emu_dtype_size(e->outputs[o]->dtype));
            return;
        }
    }
}

static void fault_mutate_input(const aclOpExecutor *e)
{
    for (int i = 0; i < 4; i++)
        if (e->inputs[i] && emu_tensor_numel(e->inputs[i]) > 0) {
            emu_store(e->inputs[i], 0, emu_load(e->inputs[i], 0) + 1.0);
            return;
        }
}

aclnnStatus emu_executor_launch(const char *api, void *workspace, uint64_t workspace_size,
                                aclOpExecutor *executor, aclrtStream stream)
{
    if (!executor) {
        emu_set_error("%s: executor is a null pointer", api);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!emu_registry_remove(executor, EMU_MAGIC_EXECUTOR)) {
        emu_set_error("%s: executor %p did not come from a first phase, or has already run",
                      api, (void *)executor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!emu_stream_valid(stream)) {
        emu_set_error("%s: stream %p is not a live stream", api, stream);
        rc = ACLNN_ERR_PARAM_INVALID;
    } else if (workspace_size < executor->workspace_size) {
        emu_set_error("%s: workspaceSize %llu is smaller than the %llu bytes the first phase "
                      "asked for", api, (unsigned long long)workspace_size,
                      (unsigned long long)executor->workspace_size);
        rc = ACLNN_ERR_PARAM_INVALID;
    } else if (workspace_size > 0 && (!workspace ||
                                      !emu_is_device_range(workspace, workspace_size))) {
        emu_set_error("%s: workspace %p is not a device allocation of %llu bytes", api, workspace,
                      (unsigned long long)workspace_size);
        rc = ACLNN_ERR_PARAM_INVALID;
    } else {
        rc = check_memory(api, executor);
    }
    if (rc == ACLNN_SUCCESS) {
        if (emu_fault_on(EMU_FAULT_CRASH))
            raise(SIGSEGV);
        while (emu_fault_on(EMU_FAULT_HANG))
            pause();
        emu_device_memory_settle(); /* the kernel may read any of it */
        if (executor->run)
            rc = executor->run(executor, workspace);
        if (rc == ACLNN_SUCCESS) {
            if (emu_fault_on(EMU_FAULT_ULP))
                fault_ulp(executor);
            if (emu_fault_on(EMU_FAULT_OOB_WRITE))
                fault_oob_write(executor);
            if (emu_fault_on(EMU_FAULT_MUTATE_INPUT))
                fault_mutate_input(executor);
        }
    }
    if (emu_fault_on(EMU_FAULT_LEAK)) {
        void *lost;
        if (aclrtMalloc(&lost, 4096, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS)
            memset(lost, 0, 4096);
        return rc; /* the executor is never freed either */
    }
    executor_free(executor);
    return rc;
}

/* An executor a first phase returned and nobody will run: freed, and no longer runnable. */
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (!executor) {
        emu_set_error("aclDestroyAclOpExecutor: executor is a null pointer");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!emu_registry_remove(executor, EMU_MAGIC_EXECUTOR)) {
        emu_set_error("aclDestroyAclOpExecutor: %p is not a live executor (run, destroyed, or "
                      "never returned by a first phase)", (void *)executor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    executor_free(executor);
    return ACLNN_SUCCESS;
}

/* The opbase library needs no set-up of its own in the emulation; both calls are idempotent. */
aclnnStatus aclnnInit(const char *configPath)
{
    (void)configPath;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }
