#!/bin/sh
# End-to-end check of the plugin + pass against the printing stub runtime:
#   compiler/tests/e2e/check.sh BUILD
set -e
B=${1:?usage: check.sh BUILD}; D=$(cd "$(dirname "$0")" && pwd)
FC=/usr/lib/llvm-19/bin/FileCheck
for O in -O0 -O2; do
  "$D/run.sh" "$B" $O b.c a.c | $FC "$D/a.c"
  "$D/run.sh" "$B" $O a.c b.c | $FC "$D/a.c"
  "$D/run.sh" "$B" $O c.c 2>/dev/null | $FC "$D/c.c"
done
echo "compiler e2e: OK"
