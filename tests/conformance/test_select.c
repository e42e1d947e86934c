/* Case selection: filter globs, shard syntax, shard resolution from the environment of Slurm,
 * Kubernetes Indexed Jobs and gtest-style runners, the partition property of shards, and the id
 * set of --resume. Expected values follow from fnmatch(3) semantics and the documented
 * conventions of each scheduler (Slurm: SLURM_ARRAY_TASK_ID counts from SLURM_ARRAY_TASK_MIN;
 * Kubernetes: JOB_COMPLETION_INDEX is 0-based; gtest: GTEST_SHARD_INDEX is 0-based). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "suite/suite.h"

static void test_filter_globs(void **state)
{
    (void)state;
    const char *none[1] = {NULL};
    assert_true(cts_filter_match(none, 0, "anything"));
    const char *g[] = {"avgpool2d_backward.basic.*", "*.ascend950"};
    assert_true(cts_filter_match(g, 2, "avgpool2d_backward.basic.doc_example.ascend910b"));
    assert_true(cts_filter_match(g, 2, "grid_sampler2d_backward.modes.x.ascend950"));
    assert_false(cts_filter_match(g, 2, "grid_sampler2d_backward.modes.x.ascend910"));
    /* An escaped bracket matches only itself: how repro lines pin one id. */
    const char *esc[] = {"s.c.kernel_size=\\[2,2\\].ascend910"};
    assert_true(cts_filter_match(esc, 1, "s.c.kernel_size=[2,2].ascend910"));
    assert_false(cts_filter_match(esc, 1, "s.c.kernel_size=2.ascend910"));
    const char *cls[] = {"s.c.kernel_size=[2,2].ascend910"}; /* unescaped: a character class */
    assert_false(cts_filter_match(cls, 1, "s.c.kernel_size=[2,2].ascend910"));
    assert_true(cts_filter_match(cls, 1, "s.c.kernel_size=2.ascend910"));
}

static void test_shard_parse(void **state)
{
    (void)state;
    cts_shard s;
    char err[200];
    assert_int_equal(cts_shard_parse("0/4", &s, err, sizeof err), 0);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 4);
    assert_int_equal(cts_shard_parse("3/4", &s, err, sizeof err), 0);
    assert_int_equal(s.index, 3);
    assert_int_equal(cts_shard_parse("4/4", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "0-based"));
    const char *bad[] = {"", "1", "1/", "/4", "-1/4", "1/0", "a/4", "1/4x", " 1/4", "1/+4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(cts_shard_parse(bad[i], &s, err, sizeof err), -1);
}

/* A fake environment: name=value pairs, NULL-terminated. */
static const char *const *fake_env;
static const char *fake_getenv(const char *name)
{
    for (const char *const *e = fake_env; e && *e; e += 2)
        if (strcmp(e[0], name) == 0)
            return e[1];
    return NULL;
}

static int resolve(const char *const *env, const char *flag, int shards, cts_shard *s)
{
    char err[200];
    fake_env = env;
    return cts_shard_resolve(flag, shards, fake_getenv, s, err, sizeof err);
}

static void test_shard_env(void **state)
{
    (void)state;
    cts_shard s;
    const char *none[] = {NULL};
    assert_int_equal(resolve(none, NULL, 0, &s), 0);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 1);

    /* sbatch --array=1-4: ids 1..4, min 1 -> shards 0..3 */
    const char *slurm1[] = {"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4",
                            "SLURM_ARRAY_TASK_MIN", "1", NULL};
    assert_int_equal(resolve(slurm1, NULL, 0, &s), 0);
    assert_int_equal(s.index, 3);
    assert_int_equal(s.count, 4);
    /* sbatch --array=0-3 */
    const char *slurm0[] = {"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_COUNT", "4",
                            "SLURM_ARRAY_TASK_MIN", "0", NULL};
    assert_int_equal(resolve(slurm0, NULL, 0, &s), 0);
    assert_int_equal(s.index, 0);
    const char *slurm_out[] = {"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4", NULL};
    assert_int_equal(resolve(slurm_out, NULL, 0, &s), -1);
    const char *slurm_nocount[] = {"SLURM_ARRAY_TASK_ID", "1", NULL};
    assert_int_equal(resolve(slurm_nocount, NULL, 0, &s), -1);

    const char *k8s[] = {"JOB_COMPLETION_INDEX", "2", NULL};
    assert_int_equal(resolve(k8s, NULL, 3, &s), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 3);
    assert_int_equal(resolve(k8s, NULL, 0, &s), -1); /* the count must come from --shards */
    assert_int_equal(resolve(k8s, NULL, 2, &s), -1); /* index 2 of 2 */

    const char *gtest[] = {"GTEST_SHARD_INDEX", "1", "GTEST_TOTAL_SHARDS", "2", NULL};
    assert_int_equal(resolve(gtest, NULL, 0, &s), 0);
    assert_int_equal(s.index, 1);
    assert_int_equal(s.count, 2);
    const char *gtest_bad[] = {"GTEST_SHARD_INDEX", "x", "GTEST_TOTAL_SHARDS", "2", NULL};
    assert_int_equal(resolve(gtest_bad, NULL, 0, &s), -1);

    /* --shard wins over the environment */
    assert_int_equal(resolve(gtest, "0/5", 0, &s), 0);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 5);
    /* --shards without an index source is a mistake, not a silent full run */
    assert_int_equal(resolve(none, NULL, 4, &s), -1);
}

static void test_shards_partition(void **state)
{
    (void)state;
    /* Every id lands in exactly one of N shards, for several N; shards are not lopsided. */
    char id[64];
    for (int n = 1; n <= 7; n++) {
        int per[7] = {0};
        for (int i = 0; i < 2000; i++) {
            snprintf(id, sizeof id, "suite.case_%d.dtype=float16.ascend910b", i);
            int owners = 0;
            for (int k = 0; k < n; k++) {
                cts_shard s = {k, n};
                if (cts_shard_has(&s, id))
                    owners++, per[k]++;
            }
            assert_int_equal(owners, 1);
        }
        for (int k = 0; k < n; k++) /* 2000/n expected; 30% slack is far beyond hash noise */
            assert_in_range(per[k], 2000 / n * 7 / 10, 2000 / n * 13 / 10);
    }
    /* The assignment is a function of the id alone. FNV-1a of "a" is 0xaf63dc4c8601ec8c
     * (published FNV test vector); the splitmix64 finalizer then mixes it. */
    assert_true(cts_id_hash("a") == cts_id_hash("a"));
    assert_true(cts_id_hash("a") != cts_id_hash("b"));
}

static void test_id_set(void **state)
{
    (void)state;
    cts_id_set s = {0};
    assert_false(cts_id_set_has(&s, "x"));
    char id[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "id%d", i);
        assert_true(cts_id_set_add(&s, id));
    }
    assert_false(cts_id_set_add(&s, "id7"));
    assert_int_equal(s.count, 1000);
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "id%d", i);
        assert_true(cts_id_set_has(&s, id));
    }
    assert_false(cts_id_set_has(&s, "id1000"));
    cts_id_set_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_globs),   cmocka_unit_test(test_shard_parse),
        cmocka_unit_test(test_shard_env),      cmocka_unit_test(test_shards_partition),
        cmocka_unit_test(test_id_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
