# omnirt::plugin_common — header-only helpers for backends that bind a vendor
# SDK at run time (dlopen, X-macro symbol tables, lazy loading, allocation
# tracking, status tables). Included by each such backend's CMakeLists.txt, so
# it works whichever backend folder CMake reaches first.
include_guard(GLOBAL)

add_library(omnirt_plugin_common INTERFACE)
add_library(omnirt::plugin_common ALIAS omnirt_plugin_common)
target_include_directories(omnirt_plugin_common INTERFACE "${CMAKE_CURRENT_LIST_DIR}/include")
target_link_libraries(omnirt_plugin_common INTERFACE omnirt::abi ${CMAKE_DL_LIBS})
