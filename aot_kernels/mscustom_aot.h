/* The AOT ABI header now ships inside the package (mscustom/include/); this
 * thin include keeps `#include "mscustom_aot.h"` working for sources in
 * aot_kernels/ built from the checkout. */
#include "../mscustom/include/mscustom_aot.h"
