// The ABI headers and the C++ helpers compile as strict C++ (see CMakeLists.txt).
#include <omnirt/omnirt.h>
#include <omnirt/cpp/plugin.hpp>

int main() { return OMNIRT_VERSION_MAJOR(OMNIRT_ABI_VERSION) == OMNIRT_ABI_VERSION_MAJOR ? 0 : 1; }
