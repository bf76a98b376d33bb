// vigil report --sarif on what libvigil writes to VIGIL_REPORT: an
// assertion violation becomes a SARIF 2.1.0 result at the assertion's
// file:line:col, with its backtrace as a stack and a code flow; the log is
// valid against the official schema.
// RUN: %vigil-cc -O1 -g %s -o %t
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: %vigil-bin report --sarif %t.jsonl > %t.sarif
// RUN: %validate-sarif %t.sarif | FileCheck %s --check-prefix=VALID
// RUN: FileCheck %s < %t.sarif
// The same from standard input, and with -o.
// RUN: cat %t.jsonl | %vigil-bin report --sarif - > %t.stdin.sarif
// RUN: %vigil-bin report --sarif %t.jsonl -o %t.o.sarif
// RUN: cmp %t.sarif %t.stdin.sarif
// RUN: cmp %t.sarif %t.o.sarif
#include <stdio.h>
#include <tesla.h>

int check(void) { return 0; }
int syscall_entry(int good);
__attribute__((noinline)) void op(void) {
  TESLA_WITHIN(syscall_entry, previously(call(check)));
}
__attribute__((noinline)) int syscall_entry(int good) {
  if (good)
    check();
  op();
  return 0;
}

int main(void) {
  syscall_entry(1);
  syscall_entry(0);
  syscall_entry(0);
  puts("done");
  return 0;
}
// OUT: vigil: assertion failed at {{.*}}assertion.c:22:3
// OUT: done

// VALID: valid SARIF 2.1.0, 2 results

// CHECK: "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
// CHECK: "results": [
// CHECK: "codeFlows": [
// CHECK: "threadFlows": [
// CHECK: "locations": [
// CHECK: "nestingLevel": 0
// CHECK: "name": "main"
// CHECK: "importance": "essential"
// CHECK: "name": "syscall_entry"
// CHECK: "level": "error"
// CHECK: "locations": [
// CHECK: "physicalLocation": {
// CHECK-NEXT: "artifactLocation": {
// CHECK-NEXT: "uri": "{{(file://)?}}{{.*}}assertion.c"
// CHECK: "region": {
// CHECK-NEXT: "startColumn": 3,
// CHECK-NEXT: "startLine": 22
// CHECK: "message": {
// CHECK-NEXT: "text": "assertion failed: required event call(check) did not happen before the assertion site (missing-before-site)\nevent: call(check)
// CHECK: "reason": "missing-before-site"
// CHECK: "ruleId": "assertion/{{.*}}assertion.c:22:3"
// CHECK: "ruleIndex": 0
// CHECK: "stacks": [
// CHECK: "ruleId": "assertion/{{.*}}assertion.c:22:3"
// CHECK: "ruleIndex": 0
// CHECK: "tool": {
// CHECK-NEXT: "driver": {
// CHECK-NEXT: "name": "vigil",
// CHECK-NEXT: "rules": [
// CHECK-NEXT: {
// CHECK-NEXT: "defaultConfiguration": {
// CHECK-NEXT: "level": "error"
// CHECK: "id": "assertion/{{.*}}assertion.c:22:3",
// CHECK-NEXT: "shortDescription": {
// CHECK-NEXT: "text": "TESLA_WITHIN(syscall_entry, previously(call(check)))"
// CHECK: "semanticVersion": "{{[0-9]+\.[0-9]+\.[0-9]+}}",
// CHECK-NEXT: "version": "{{[0-9]+\.[0-9]+\.[0-9]+}}"
// CHECK: "version": "2.1.0"
