#include <unistd.h>
int check(int x) { return x > 5 ? 0 : -1; }
int helper(int x) { return x + 1; }
