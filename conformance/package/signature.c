/* The package's signature (package.h): an Ed25519 signature (OpenSSL EVP, "pure" Ed25519 over
 * the message itself) of SHA256SUMS, whose SHA-256 is the package digest, so it binds every
 * packaged file through its hash. Stored raw (64 bytes) in SHA256SUMS.sig, the form
 * `openssl pkeyutl -verify -rawin -in SHA256SUMS -sigfile SHA256SUMS.sig` checks too. */
#include "package.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#define SIG_BYTES 64
#define MAX_SUMS (64u << 20) /* SHA256SUMS of any real package is far smaller */

/* An Ed25519 key from a PEM file (private or public); NULL with a message. */
static EVP_PKEY *read_key(const char *path, bool private_key, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    EVP_PKEY *k = private_key ? PEM_read_PrivateKey(f, NULL, NULL, NULL)
                              : PEM_read_PUBKEY(f, NULL, NULL, NULL);
    fclose(f);
    ERR_clear_error();
    if (!k) {
        snprintf(err, errlen, "%s: not a PEM %s key", path, private_key ? "private" : "public");
        return NULL;
    }
    if (EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
        snprintf(err, errlen, "%s: not an Ed25519 key (make one with `openssl genpkey "
                 "-algorithm ed25519`)", path);
        EVP_PKEY_free(k);
        return NULL;
    }
    return k;
}

/* dir/name into a malloc'd buffer (at most max bytes, regular files only); NULL on error. */
static unsigned char *slurp(const char *dir, const char *name, size_t max, size_t *len)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = cts_package_fopen(path);
    unsigned char *buf = f ? malloc(max + 1) : NULL;
    *len = buf ? fread(buf, 1, max + 1, f) : 0;
    if (f && (ferror(f) || *len > max)) {
        free(buf);
        buf = NULL;
    }
    if (f) fclose(f);
    return buf;
}

int cts_signing_key_check(const char *key_path, char *err, size_t errlen)
{
    EVP_PKEY *k = read_key(key_path, true, err, errlen);
    EVP_PKEY_free(k);
    return k ? 0 : -1;
}

int cts_package_sign(const char *dir, const char *key_path, char *err, size_t errlen)
{
    size_t n, siglen = SIG_BYTES;
    unsigned char sig[SIG_BYTES];
    EVP_PKEY *k = read_key(key_path, true, err, errlen);
    unsigned char *sums = k ? slurp(dir, "SHA256SUMS", MAX_SUMS, &n) : NULL;
    EVP_MD_CTX *ctx = sums ? EVP_MD_CTX_new() : NULL;
    int rc = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) == 1 &&
                     EVP_DigestSign(ctx, sig, &siglen, sums, n) == 1 && siglen == SIG_BYTES
                 ? 0 : -1;
    if (k && rc != 0) snprintf(err, errlen, "signing %s/SHA256SUMS with %s failed", dir, key_path);
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, CTS_PACKAGE_SIGNATURE);
    FILE *f = rc == 0 ? fopen(path, "wb") : NULL;
    if (rc == 0 && (!f || fwrite(sig, 1, siglen, f) != siglen)) rc = -1;
    if (f && fclose(f) != 0) rc = -1;
    if (k && ctx && rc != 0 && !*err)
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    EVP_MD_CTX_free(ctx);
    free(sums);
    EVP_PKEY_free(k);
    ERR_clear_error();
    return rc;
}

int cts_package_check_signature(const char *dir, const char *pub_path, FILE *out)
{
    char err[PATH_MAX + 200] = "";
    size_t n, siglen;
    EVP_PKEY *k = read_key(pub_path, false, err, sizeof err);
    if (!k) {
        fprintf(out, "%s\n", err);
        return 1;
    }
    unsigned char *sig = slurp(dir, CTS_PACKAGE_SIGNATURE, SIG_BYTES, &siglen);
    unsigned char *sums = slurp(dir, "SHA256SUMS", MAX_SUMS, &n);
    EVP_MD_CTX *ctx = sig && sums ? EVP_MD_CTX_new() : NULL;
    bool ok = ctx && siglen == SIG_BYTES && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k) == 1 &&
              EVP_DigestVerify(ctx, sig, siglen, sums, n) == 1;
    if (!sig)
        fprintf(out, "%s: missing: the package is not signed (--pubkey asks for a signature)\n",
                CTS_PACKAGE_SIGNATURE);
    else if (!ok)
        fprintf(out, "%s: does not verify with %s: not signed by that key, or SHA256SUMS "
                "changed since it was signed\n", CTS_PACKAGE_SIGNATURE, pub_path);
    else
        fprintf(out, "%s: a valid Ed25519 signature of SHA256SUMS by the key %s\n",
                CTS_PACKAGE_SIGNATURE, pub_path);
    EVP_MD_CTX_free(ctx);
    free(sig);
    free(sums);
    EVP_PKEY_free(k);
    ERR_clear_error();
    return ok ? 0 : 1;
}
