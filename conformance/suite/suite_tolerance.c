/* `tolerance:` of a case: a policy, or a map choosing a policy per dtype and numerics
 * parameter (cubeMathType: DTYPE/cmtN).
 * The named policies carry the thresholds of facts §5; a suite can spell any of them out
 * instead (`allclose: {rtol, atol}`, `share: {rel, min_share, small}`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

static void named(cts_tolerance *t, cts_tol_kind kind, const char *name)
{
    free((void *)t->name);
    t->kind = kind;
    t->name = strdup(name);
    if (!t->name)
        abort();
}

/* facts §5: PyTorch assert_close defaults. */
static void torch_default(ref_dtype dt, double *rtol, double *atol)
{
    switch (dt) {
    case REF_DT_FLOAT16: *rtol = 1e-3, *atol = 1e-5; break;
    case REF_DT_BF16: *rtol = 1.6e-2, *atol = 1e-5; break;
    case REF_DT_DOUBLE: *rtol = 1e-7, *atol = 1e-7; break;
    default: *rtol = 1.3e-6, *atol = 1e-5; break;
    }
}

/* facts §5: Ascend small-value thresholds (absolute error below them). FP64 uses FP32's. */
static double ascend_small(ref_dtype dt)
{
    return dt == REF_DT_FLOAT16 ? ldexp(1, -10) : dt == REF_DT_BF16 ? ldexp(1, -8) : ldexp(1, -20);
}

static bool read_params(const cts_keyctx *k, const char *field, const cts_ynode *v,
                        const char *const *names, double *out, int n)
{
    if (!cts_expect_kind(k, field, v, CTS_YN_MAP))
        return false;
    bool ok = true, seen[4] = {false};
    for (size_t i = 0; i < v->n; i += 2) {
        char f[300];
        cts_fmt(f, sizeof f, "%s.%s", field, v->items[i]->text);
        int j = 0;
        while (j < n && strcmp(names[j], v->items[i]->text))
            j++;
        if (j == n) {
            ERR(v->items[i], f, "unknown key");
            ok = false;
        } else if (cts_read_double(k, f, v->items[i + 1], &out[j])) {
            seen[j] = true;
            if (!(out[j] >= 0)) {
                ERR(v->items[i + 1], f, "must be >= 0");
                ok = false;
            }
        } else {
            ok = false;
        }
    }
    for (int j = 0; j < n && ok; j++)
        if (!seen[j]) {
            ERR(v, field, "missing '%s'", names[j]);
            ok = false;
        }
    return ok;
}

static bool policy(const cts_keyctx *k, const char *field, const cts_ynode *v, ref_dtype dt,
                   cts_tolerance *t)
{
    char buf[160];
    if (v->kind == CTS_YN_SCALAR) {
        if (!strcmp(v->text, "bound")) {
            named(t, CTS_TOL_BOUND, "bound");
        } else if (!strcmp(v->text, "documented-path")) {
            named(t, CTS_TOL_DOCUMENTED, "documented-path");
        } else if (!strcmp(v->text, "torch-default")) {
            named(t, CTS_TOL_ALLCLOSE, "torch-default");
            torch_default(dt, &t->rtol, &t->atol);
        } else if (!strcmp(v->text, "ascend-thousandth") ||
                   !strcmp(v->text, "ascend-ten-thousandth")) {
            bool ten = v->text[7] == 't' && v->text[8] == 'e';
            named(t, CTS_TOL_SHARE, v->text);
            t->rel = ten ? 1e-4 : 1e-3;
            t->min_share = ten ? 0.9999 : 0.999;
            t->small_threshold = ascend_small(dt);
        } else {
            ERR(v, field, "unknown tolerance policy '%s' (bound, documented-path, torch-default, "
                "ascend-thousandth, ascend-ten-thousandth, {ulp: N}, {allclose: {rtol, atol}}, "
                "{share: {rel, min_share, small}})", v->text);
            return false;
        }
        return true;
    }
    if (v->kind != CTS_YN_MAP || v->n != 2) {
        ERR(v, field, "expected a tolerance policy, got %s", cts_yaml_kind_name(v));
        return false;
    }
    const char *key = v->items[0]->text;
    const cts_ynode *arg = v->items[1];
    char f[256];
    cts_fmt(f, sizeof f, "%s.%s", field, key);
    if (!strcmp(key, "ulp")) {
        double u;
        if (!cts_read_double(k, f, arg, &u))
            return false;
        if (!(u >= 0)) {
            ERR(arg, f, "must be >= 0");
            return false;
        }
        cts_fmt(buf, sizeof buf, "ulp:%g", u);
        named(t, CTS_TOL_ULP, buf);
        t->ulps = u;
        return true;
    }
    if (!strcmp(key, "allclose")) {
        static const char *const n[] = {"rtol", "atol"};
        double p[2];
        if (!read_params(k, f, arg, n, p, 2))
            return false;
        cts_fmt(buf, sizeof buf, "allclose:rtol=%g,atol=%g", p[0], p[1]);
        named(t, CTS_TOL_ALLCLOSE, buf);
        t->rtol = p[0];
        t->atol = p[1];
        return true;
    }
    if (!strcmp(key, "share")) {
        static const char *const n[] = {"rel", "min_share", "small"};
        double p[3];
        if (!read_params(k, f, arg, n, p, 3))
            return false;
        if (p[1] > 1) {
            ERR(arg, f, "min_share must be in [0, 1]");
            return false;
        }
        cts_fmt(buf, sizeof buf, "share:rel=%g,min_share=%g,small=%g", p[0], p[1], p[2]);
        named(t, CTS_TOL_SHARE, buf);
        t->rel = p[0];
        t->min_share = p[1];
        t->small_threshold = p[2];
        return true;
    }
    return false; /* not a policy map: the caller reads it as a per-dtype choice */
}

static bool is_policy_map(const cts_ynode *v)
{
    if (v->kind != CTS_YN_MAP || v->n != 2)
        return false;
    const char *key = v->items[0]->text;
    return !strcmp(key, "ulp") || !strcmp(key, "allclose") || !strcmp(key, "share");
}

/* The tolerance tag of the op's numerics parameter ("cmt" for cubeMathType), or NULL. */
static const char *numerics_tag(const cts_op_driver *op)
{
    int i = op ? cts_op_tolerance_param(op) : -1;
    return i >= 0 ? op->params[i].tolerance_tag : NULL;
}

/* "float16", "float32/cmt1" (tag "cmt") or "default" → dtype and the numerics value (-1 = any);
 * false if bad. */
static bool selector(const char *s, const char *tag, ref_dtype *dt, int64_t *cmt, bool *dflt)
{
    *dflt = !strcmp(s, "default");
    *cmt = -1;
    if (*dflt)
        return true;
    char name[32];
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    if (n >= sizeof name)
        return false;
    memcpy(name, s, n);
    name[n] = 0;
    if (!cts_dtype_from_name(name, dt))
        return false;
    if (slash) {
        char *end;
        size_t tl = tag ? strlen(tag) : 0;
        if (!tag || strncmp(slash + 1, tag, tl) != 0)
            return false;
        *cmt = strtol(slash + 1 + tl, &end, 10);
        if (slash[1 + tl] == 0 || *end != 0)
            return false;
    }
    return true;
}

bool cts_tolerance_resolve(const cts_keyctx *k, const char *field, const cts_ynode *v,
                           ref_dtype dt, int64_t numerics, cts_tolerance *out)
{
    const char *tag = numerics_tag(k->op);
    char sel[40] = "";
    if (tag)
        cts_fmt(sel, sizeof sel, "/%sN", tag);  /* "DTYPE, DTYPE/cmtN or default" */
    named(out, CTS_TOL_BOUND, "bound");
    if (v->kind == CTS_YN_SCALAR || is_policy_map(v))
        return policy(k, field, v, dt, out);
    if (v->kind != CTS_YN_MAP) {
        ERR(v, field, "expected a tolerance policy or a map of dtype%s%s%s to policy, got %s",
            tag ? "[" : "", sel, tag ? "]" : "", cts_yaml_kind_name(v));
        return false;
    }
    /* Every entry is checked; the most specific match wins: dtype/<tag>N, dtype, default. */
    const cts_ynode *best = NULL;
    int best_rank = 0;
    bool ok = true;
    for (size_t i = 0; i < v->n; i += 2) {
        const cts_ynode *key = v->items[i], *val = v->items[i + 1];
        char f[256];
        cts_fmt(f, sizeof f, "%s.%s", field, key->text);
        ref_dtype kdt;
        int64_t kcmt;
        bool dflt;
        if (!selector(key->text, tag, &kdt, &kcmt, &dflt)) {
            ERR(key, f, "expected a policy (bound, ulp, allclose, share, ...) or a selector "
                "DTYPE%s%s or default, got '%s'", tag ? ", DTYPE" : "", sel, key->text);
            ok = false;
            continue;
        }
        cts_tolerance probe = {0};
        if (val->kind == CTS_YN_MAP && !is_policy_map(val)) {
            ERR(val, f, "expected a tolerance policy, got a map");
            ok = false;
        } else {
            ok &= policy(k, f, val, dt, &probe);
        }
        free((void *)probe.name);
        int rank = dflt ? 1 : kdt != dt ? 0 : kcmt < 0 ? 2 : kcmt == numerics ? 3 : 0;
        if (rank > best_rank) {
            best_rank = rank;
            best = val;
        }
    }
    if (!ok)
        return false;
    if (best) {
        char f[256];
        cts_fmt(f, sizeof f, "%s", field);
        return policy(k, f, best, dt, out);
    }
    return true;
}
