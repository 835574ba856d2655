/* The ABI headers compile as strict C99 (see CMakeLists.txt for the flags). */
#include <omnirt/omnirt.h>

int main(void) {
  omnirt_capabilities caps = {sizeof(omnirt_capabilities), 0, 0, 0, 0, 0, 0, 0, 0, 0};
  return caps.struct_size == sizeof caps ? 0 : 1;
}
