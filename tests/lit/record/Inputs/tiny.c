/* A program with one function of its own, for the refusals. */
__attribute__((noinline)) int present(int x) { return x + 1; }
int main(int argc, char **argv) { (void)argv; return present(argc) - argc - 1; }
