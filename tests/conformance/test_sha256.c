/* SHA-256 against the FIPS 180-2 appendix B examples ("abc", the 448-bit two-block message, one
 * million 'a') and the well-known digest of the empty string; plus split updates and a file
 * hashed to the same digest as its bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "results/results.h"

static void hex_of(const void *p, size_t n, char hex[65])
{
    cts_sha256 s;
    unsigned char d[32];
    cts_sha256_init(&s);
    cts_sha256_update(&s, p, n);
    cts_sha256_final(&s, d);
    cts_sha256_hex(d, hex);
}

static void fips_vectors(void **state)
{
    (void)state;
    char hex[65];
    hex_of("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(m2, strlen(m2), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* One million 'a' fed in uneven pieces (7 bytes, then 1000, ...) must give appendix B.3. */
static void million_a_split(void **state)
{
    (void)state;
    static char a[1000000];
    memset(a, 'a', sizeof a);
    cts_sha256 s;
    unsigned char d[32];
    char hex[65];
    cts_sha256_init(&s);
    size_t off = 0, step = 7;
    while (off < sizeof a) {
        size_t n = sizeof a - off < step ? sizeof a - off : step;
        cts_sha256_update(&s, a + off, n);
        off += n;
        step = step == 7 ? 1000 : 7;
    }
    cts_sha256_final(&s, d);
    cts_sha256_hex(d, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void file_digest(void **state)
{
    (void)state;
    char path[] = "/tmp/aclcts-sha256-XXXXXX", hex[65];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    assert_int_equal(cts_sha256_file(path, hex), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    assert_int_equal(cts_sha256_file(path, hex), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fips_vectors),
                                       cmocka_unit_test(million_a_split),
                                       cmocka_unit_test(file_digest)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
