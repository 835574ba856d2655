#include "omnirt/host.h"

uint32_t omnirt_abi_version(void) { return OMNIRT_ABI_VERSION; }

const char* omnirt_library_version(void) { return OMNIRT_LIBRARY_VERSION; }
