/* A second file of the program: explain --static links every file given. */
int helper_from_another_file(void) { return 0; }
