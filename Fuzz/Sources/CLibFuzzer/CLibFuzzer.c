// Only a declaration (include/CLibFuzzer.h): the driver itself is linked by -sanitize=fuzzer.
#include "CLibFuzzer.h"
