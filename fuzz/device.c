/* Backend selection and product switching for the fuzz targets (device.h). */
#include "device.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static cts_backend backend;
static bool opened, initialised;
static ref_product cur_product;
static ref_spec cur_spec;

static void die(const char *what, int rc, const cts_backend *b)
{
    fprintf(stderr, "fuzz setup: %s failed (%d): %s\n", what, rc,
            b && b->aclGetRecentErrMsg ? b->aclGetRecentErrMsg() : "");
    abort();
}

static void open_backend(void)
{
    const char *spec = getenv("ACLCTS_FUZZ_BACKEND");
    char err[512];
    if (cts_backend_open(spec && *spec ? spec : "emu", &backend, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz setup: %s\n", err);
        abort();
    }
    opened = true;
    /* One thread per fuzz process (libFuzzer runs one process per core): idle OpenMP workers
     * spinning between tiny calls cost more than the calls. */
    omp_set_num_threads(1);
    if (backend.emulated) {
        /* Make non-deterministic scatter order visible on one core (determinism oracle). */
        setenv("ACLNN_EMU_SHUFFLE", "1", 0);
        return;
    }
    const char *p = getenv("ACLCTS_FUZZ_PRODUCT"), *s = getenv("ACLCTS_FUZZ_SPEC");
    if (!p || ref_product_from_id(p, &cur_product) != 0) {
        fprintf(stderr, "fuzz setup: a real device needs ACLCTS_FUZZ_PRODUCT=<product id>\n");
        abort();
    }
    cur_spec = REF_SPEC_VENDOR_92;
    if (s && ref_spec_from_name(s, &cur_spec) != 0) {
        fprintf(stderr, "fuzz setup: unknown ACLCTS_FUZZ_SPEC '%s'\n", s);
        abort();
    }
    aclError rc = backend.aclInit(NULL);
    if (rc != ACL_SUCCESS) die("aclInit", rc, &backend);
    if ((rc = backend.aclrtSetDevice(0)) != ACL_SUCCESS) die("aclrtSetDevice", rc, &backend);
    initialised = true;
}

const cts_backend *fuzz_device(ref_product *product, ref_spec *spec)
{
    if (!opened) open_backend();
    if (!backend.emulated) {
        *product = cur_product;
        *spec = cur_spec;
        return &backend;
    }
    if (initialised && *product == cur_product && *spec == cur_spec) return &backend;
    if (initialised) {
        backend.aclrtResetDevice(0);
        backend.aclFinalize();
        initialised = false;
    }
    setenv("ACLCTS_SOC", ref_product_id(*product), 1);
    setenv("ACLNN_EMU_SPEC", ref_spec_name(*spec), 1);
    aclError rc = backend.aclInit(NULL);
    if (rc != ACL_SUCCESS) die("aclInit", rc, &backend);
    if ((rc = backend.aclrtSetDevice(0)) != ACL_SUCCESS) die("aclrtSetDevice", rc, &backend);
    cur_product = *product;
    cur_spec = *spec;
    initialised = true;
    return &backend;
}
