// More than 64 distinct events (bounds and site included).
// RUN: not %clang-vigil -fsyntax-only %s 2>&1 | FileCheck %s
#include <tesla.h>

struct s { int a; };
struct s mk(int);
int sv(struct s);
int f(int);
int g(void);
int h(void);
void v(int);
double d(double);
int vf(int, ...);
int nine(int, int, int, int, int, int, int, int, int);
__int128 big(void);
int glob;
int syscall(void);

void t(int x) {
  // CHECK: {{.*}}too-many-events.c:[[@LINE+1]]:819: error: vigil: more than 64 distinct events in one assertion (bounds and site included)
  TESLA_WITHIN(syscall, previously(call(v(0)), call(v(1)), call(v(2)), call(v(3)), call(v(4)), call(v(5)), call(v(6)), call(v(7)), call(v(8)), call(v(9)), call(v(10)), call(v(11)), call(v(12)), call(v(13)), call(v(14)), call(v(15)), call(v(16)), call(v(17)), call(v(18)), call(v(19)), call(v(20)), call(v(21)), call(v(22)), call(v(23)), call(v(24)), call(v(25)), call(v(26)), call(v(27)), call(v(28)), call(v(29)), call(v(30)), call(v(31)), call(v(32)), call(v(33)), call(v(34)), call(v(35)), call(v(36)), call(v(37)), call(v(38)), call(v(39)), call(v(40)), call(v(41)), call(v(42)), call(v(43)), call(v(44)), call(v(45)), call(v(46)), call(v(47)), call(v(48)), call(v(49)), call(v(50)), call(v(51)), call(v(52)), call(v(53)), call(v(54)), call(v(55)), call(v(56)), call(v(57)), call(v(58)), call(v(59)), call(v(60)), call(v(61))));
}
