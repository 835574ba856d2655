# omnirt_add_backend(<name> SOURCES <src>... [LINK_LIBRARIES <lib>...] [NO_INSTALL])
#
# Builds libomnirt_backend_<name>.so, a dlopen-only MODULE library that:
#  - compiles with hidden visibility and exports only omnirt_backend_entry
#    (version script omnirt_plugin.map);
#  - finds its own helper libraries next to itself ($ORIGIN rpath);
#  - links no vendor SDK: those are dlopen'ed at run time (DESIGN decision 4);
#  - lands in <libdir>/omnirt/plugins of the build tree and the install tree.
# Shipped with the CMake package so out-of-tree plugins build the same way.
set(OMNIRT_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/omnirt_plugin.map")

function(omnirt_add_backend name)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "SOURCES;LINK_LIBRARIES" ${ARGN})
  set(target omnirt_backend_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE omnirt::abi ${ARG_LINK_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "omnirt_backend_${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    BUILD_RPATH "$ORIGIN"
    INSTALL_RPATH "$ORIGIN"
    LINK_DEPENDS "${OMNIRT_PLUGIN_VERSION_SCRIPT}")
  if(DEFINED OMNIRT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${OMNIRT_PLUGIN_OUTPUT_DIR}")
  endif()
  target_link_options(${target} PRIVATE "LINKER:--version-script=${OMNIRT_PLUGIN_VERSION_SCRIPT}")
  if(NOT OMNIRT_SANITIZE AND NOT OMNIRT_SANITIZE_THREAD)
    # Every symbol must resolve at link time: a plugin never relies on the host's symbols.
    # (A sanitizer's runtime symbols resolve in the executable, so not in those builds.)
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  if(NOT ARG_NO_INSTALL AND DEFINED OMNIRT_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION "${OMNIRT_PLUGIN_INSTALL_DIR}" COMPONENT plugins)
  endif()
endfunction()
