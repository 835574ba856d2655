# omnirt_add_backend(<name> SOURCES <src>... [VERSION <version>] [COMPONENT <component>]
#                    [LINK_LIBRARIES <lib>...] [NO_INSTALL])
#
# Builds libomnirt_backend_<name>.so, a dlopen-only MODULE library that:
#  - compiles with hidden visibility and exports only omnirt_backend_entry
#    (version script omnirt_plugin.map);
#  - finds its own helper libraries next to itself ($ORIGIN rpath);
#  - links no vendor SDK: those are dlopen'ed at run time (DESIGN decision 4);
#  - carries its own version, VERSION (default: the calling project's
#    PROJECT_VERSION): compiled in as the string literal OMNIRT_BACKEND_VERSION
#    (pass it to OMNIRT_DEFINE_BACKEND as the plugin_version) and kept as the
#    target property OMNIRT_BACKEND_VERSION, which omnirt_backend_deb() reads;
#  - lands in <libdir>/omnirt/plugins of the build tree and the install tree,
#    installed as COMPONENT (default backend-<name>), so that each backend
#    installs and packages on its own (`cmake --install --component`).
# Shipped with the CMake package so out-of-tree plugins build the same way.
#
# omnirt_add_backend_library(<name> TARGETS <target>... [COMPONENT <component>])
#
# A backend's companion libraries (an engine or a collectives library it
# dlopens from its own folder): built into and installed with the plugin, in
# component backend-<name> unless COMPONENT names another (a package of their
# own, e.g. for a heavy dependency the backend can live without).
set(OMNIRT_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/omnirt_plugin.map")
include("${CMAKE_CURRENT_LIST_DIR}/OmniRTDebian.cmake")

function(omnirt_add_backend name)
  cmake_parse_arguments(ARG "NO_INSTALL" "VERSION;COMPONENT" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT DEFINED ARG_VERSION)
    set(ARG_VERSION "${PROJECT_VERSION}")
  endif()
  if(NOT DEFINED ARG_COMPONENT)
    set(ARG_COMPONENT "backend-${name}")
  endif()
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
    LINK_DEPENDS "${OMNIRT_PLUGIN_VERSION_SCRIPT}"
    OMNIRT_BACKEND_COMPONENT "${ARG_COMPONENT}")
  if(NOT ARG_VERSION STREQUAL "")
    set_property(TARGET ${target} PROPERTY OMNIRT_BACKEND_VERSION "${ARG_VERSION}")
    target_compile_definitions(${target} PRIVATE OMNIRT_BACKEND_VERSION="${ARG_VERSION}")
  endif()
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
    install(TARGETS ${target} LIBRARY DESTINATION "${OMNIRT_PLUGIN_INSTALL_DIR}"
            COMPONENT "${ARG_COMPONENT}")
  endif()
endfunction()

function(omnirt_add_backend_library name)
  cmake_parse_arguments(ARG "" "COMPONENT" "TARGETS" ${ARGN})
  if(NOT DEFINED ARG_COMPONENT)
    set(ARG_COMPONENT "backend-${name}")
  endif()
  if(DEFINED OMNIRT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${ARG_TARGETS} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${OMNIRT_PLUGIN_OUTPUT_DIR}")
  endif()
  if(DEFINED OMNIRT_PLUGIN_INSTALL_DIR)
    install(TARGETS ${ARG_TARGETS} LIBRARY DESTINATION "${OMNIRT_PLUGIN_INSTALL_DIR}"
            COMPONENT "${ARG_COMPONENT}")
  endif()
endfunction()
