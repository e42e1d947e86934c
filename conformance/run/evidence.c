/* --evidence DIR: the device's outputs of each numeric case, so a third party can re-judge it
 * (replay.c). One gzip file per case, DIR/<case id>.gz: a header line, then the output views'
 * elements in the order run_output_hash hashes them. */
#include "run_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "data/data.h"

/* Bytes of the outputs' view elements, in hash order. */
static uint64_t evidence_bytes(const cts_case *c, const device_run *r)
{
    uint64_t n = 0;
    for (int i = 0; i < c->ntensors; i++)
        if (c->t[i].is_output && !c->t[i].null) n += (uint64_t)r->d[i].numel * r->d[i].esize;
    return n;
}

static int write_outputs(gzFile z, const cts_case *c, const device_run *r)
{
    for (int i = 0; i < c->ntensors; i++) {
        const cts_dev_tensor *d = &r->d[i];
        if (!c->t[i].is_output || c->t[i].null) continue;
        for (int64_t k = 0; k < d->numel; k++) {
            const unsigned char *p = d->back + CTS_GUARD_BYTES + cts_dev_tensor_pos(d, k) * d->esize;
            if (gzwrite(z, p, (unsigned)d->esize) != (int)d->esize) return -1;
        }
    }
    return 0;
}

void cts_evidence_path(const char *dir, const char *case_id, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.gz", dir, case_id);
}

int run_evidence_write(const char *dir, const cts_case *c, const device_run *r,
                       const cts_verdict *v, char *err, size_t errlen)
{
    char path[4096], tmp[4200];
    cts_evidence_path(dir, c->id, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.partial-%ld", path, (long)getpid());
    gzFile z = gzopen(tmp, "wb6");
    if (!z) return snprintf(err, errlen, "%s: %s", tmp, strerror(errno)), -1;
    int rc = gzprintf(z, "%s seed=%" PRIu64 " generator=%d hash=%016" PRIx64 " bytes=%" PRIu64 "\n",
                      CTS_EVIDENCE_FORMAT, c->seed, CTS_DATA_GENERATOR, v->output_hash,
                      evidence_bytes(c, r)) > 0 ? write_outputs(z, c, r) : -1;
    if (gzclose(z) != Z_OK) rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, errno ? strerror(errno) : "gzip error");
        unlink(tmp);
    }
    return rc;
}
