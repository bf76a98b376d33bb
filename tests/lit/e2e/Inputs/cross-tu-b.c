/* The functions the assertion in cross-tu.c names, in another translation
 * unit compiled first. */
int permitted(int uid) { return uid == 0 ? 0 : -1; }
int get(int uid, int fail_check);
void access_data(int uid);
int get(int uid, int fail_check) {
  if (!fail_check)
    permitted(uid);
  access_data(uid);
  return 0;
}
