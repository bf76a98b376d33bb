#!/bin/sh
# usage: run.sh BUILD OPT [sources...]  (default sources: b.c a.c)
# Compiles the sources with the vigil plugin, links them with the pass and
# the printing stub runtime (stub_runtime.c), and runs the program.
set -e
B=$1; O=${2:--O0}; shift 2 || true
D=$(cd "$(dirname "$0")" && pwd); T=$(mktemp -d)
INC=$D/../../../include
[ $# -gt 0 ] || set -- b.c a.c
CC="clang-19 -D__VIGIL__=1 -I$INC -fplugin=$B/lib/vigil-clang.so -flto=full -Xclang -disable-llvm-passes $O"
OBJS=
for s in "$@"; do
  $CC -c "$D/$s" -o "$T/${s%.c}.o"
  OBJS="$OBJS $T/${s%.c}.o"
done
clang-19 -I$INC -c "$D/stub_runtime.c" -o $T/stub.o
clang-19 $O -flto=full -fuse-ld=lld -Wl,--load-pass-plugin=$B/lib/vigil-pass.so $OBJS $T/stub.o -o $T/prog -lpthread
$T/prog
rm -rf $T
