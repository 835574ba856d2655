# omnirt::plugin_common — header-only helpers for backends that bind a vendor
# SDK at run time (dlopen, X-macro symbol tables, lazy loading, allocation
# tracking, status tables). Included by each such backend's CMakeLists.txt, so
# it works whichever backend folder CMake reaches first.
include_guard(GLOBAL)

add_library(omnirt_plugin_common INTERFACE)
add_library(omnirt::plugin_common ALIAS omnirt_plugin_common)
target_include_directories(omnirt_plugin_common INTERFACE "${CMAKE_CURRENT_LIST_DIR}/include")
target_link_libraries(omnirt_plugin_common INTERFACE omnirt::abi ${CMAKE_DL_LIBS})

# omnirt_backend_version(<name> <out-var>): the version of the in-tree backend
# in the calling folder, from its VERSION file (one line, x.y.z), which the
# backend reports as its plugin_version and is packaged under; each backend
# moves its own. -DOMNIRT_BACKEND_<NAME>_VERSION=<version> overrides it for
# one build (a hotfix, a test of an upgrade) without editing the file.
function(omnirt_backend_version name out)
  string(TOUPPER "${name}" upper)
  set(file "${CMAKE_CURRENT_SOURCE_DIR}/VERSION")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  if(DEFINED OMNIRT_BACKEND_${upper}_VERSION)
    set(version "${OMNIRT_BACKEND_${upper}_VERSION}")
  else()
    file(STRINGS "${file}" version LIMIT_COUNT 1)
  endif()
  # A Debian upstream version too: no hyphen (that would start a revision).
  if(NOT version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+([.+~][0-9A-Za-z.+~]*)?$")
    message(FATAL_ERROR "${name} backend version '${version}' (${file} or OMNIRT_BACKEND_${upper}_VERSION) "
                        "is not x.y.z, optionally followed by . + or ~ and letters, digits, . + ~")
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()
