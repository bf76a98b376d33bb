// TESLA's openssl-api demo, with a small stand-in for OpenSSL's API: before
// the program uses a certificate, it must have been verified successfully
// (verify_cert() returning exactly 1), by a context initialised with that
// very certificate.  The demo's two bugs: the context is initialised
// without the certificate, and `if (result)` accepts -1 (an exceptional
// error) as success (CVE-2008-5077).
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t good 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t good 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t null-cert 2>&1 | FileCheck %s --check-prefix=NULLCERT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t null-cert 2>&1 | FileCheck %s --check-prefix=NULLCERT
// RUN: env VIGIL_ON_FAILURE=log %t not-signed 2>&1 | FileCheck %s --check-prefix=NOTSIGNED
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

struct cert {
  const char *subject;
  const char *issuer;
};
struct cert_store {
  const char *trusted;
};
struct verify_ctx {
  struct cert_store *store;
  struct cert *cert;
  int error;
};

int main(int argc, char *argv[]);

int ctx_init(struct verify_ctx *ctx, struct cert_store *store, struct cert *cert) {
  ctx->store = store;
  ctx->cert = cert;
  ctx->error = 0;
  return 1;
}

/* 1: verified, 0: not signed by the store, -1: exceptional error. */
int verify_cert(struct verify_ctx *ctx) {
  if (!ctx->cert) {
    ctx->error = 1;
    return -1;
  }
  return strcmp(ctx->cert->issuer, ctx->store->trusted) == 0 ? 1 : 0;
}

static bool verify(struct cert *cert, struct cert_store *trusted, bool bug_init,
                   bool bug_check) {
  struct verify_ctx ctx;
  if (ctx_init(&ctx, trusted, bug_init ? NULL : cert) != 1)
    return false;
  int result = verify_cert(&ctx);
  return bug_check ? result != 0 : result == 1;
}

void use_cert(struct cert *cert) {
  // NULLCERT: vigil: assertion failed at {{.*}}tesla-openssl-api.c:[[@LINE+2]]:3
  // NOTSIGNED: vigil: assertion failed at {{.*}}tesla-openssl-api.c:[[@LINE+1]]:3
  TESLA_WITHIN(main, previously(verify_cert(ANY(ptr)) == 1));
  // NULLCERT: (missing-before-site)
  // NOTSIGNED: reason: required event verify_cert(ANY(ptr)) == 1 did not happen before the assertion site (missing-before-site)
  // NULLCERT: vigil: assertion failed at {{.*}}tesla-openssl-api.c:[[@LINE+1]]:3
  TESLA_WITHIN(main, previously(ctx_init(ANY(ptr), ANY(ptr), cert) == 1));
  // NULLCERT: reason: required event ctx_init(ANY(ptr), ANY(ptr), cert) == 1 did not happen before the assertion site (missing-before-site)
  fprintf(stderr, "using '%s'\n", cert->subject);
}

int main(int argc, char *argv[]) {
  struct cert_store ca = {"Demo CA"};
  struct cert good = {"demo.example", "Demo CA"}, hacked = {"hacked.example", "Evil CA"};
  const char *m = argc > 1 ? argv[1] : "good";
  struct cert *cert = !strcmp(m, "not-signed") ? &hacked : &good;
  bool bug_init = !strcmp(m, "null-cert");
  bool bug_check = !strcmp(m, "null-cert") || !strcmp(m, "not-signed");
  if (verify(cert, &ca, bug_init, bug_check))
    fprintf(stderr, "'%s' is signed by '%s'\n", cert->subject, ca.trusted);
  else
    fprintf(stderr, "'%s' is NOT signed by '%s'\n", cert->subject, ca.trusted);
  use_cert(cert); /* the demo uses the certificate either way */
  fprintf(stderr, "done\n");
  return 0;
}
// OK: 'demo.example' is signed by 'Demo CA'
// OK: using 'demo.example'
// OK: done
//
// NULLCERT-NOT: assertion failed
// NULLCERT: using 'demo.example'
// NULLCERT: done
//
// Verified with the certificate, which is not signed: only the first
// assertion fails.
// NOTSIGNED-NOT: assertion failed
// NOTSIGNED: using 'hacked.example'
// NOTSIGNED: done
