/* <vigil/tesla.h> is the same header as <tesla.h>. */
#include "../tesla.h"
