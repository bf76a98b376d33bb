/* <vigil/tesla-macros.h> is the same header as <tesla-macros.h>. */
#include "../tesla-macros.h"
