# One step of the install tests (see CMakeLists.txt), run as
#   cmake -DSTEP=<step> -DWORK=... -P install_test.cmake
# Layout under WORK: prefix/ (the installed OmniRT), vendor/ (the C plugin's
# own install prefix), build-<name>/ (out-of-tree build trees).
cmake_minimum_required(VERSION 3.20)

set(prefix "${WORK}/prefix")
set(vendor_plugins "${WORK}/vendor/${PLUGIN_DIR}")

# Runs a command; any failure ends the test with its output.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "`${command}` failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# Configures and builds the project in SOURCE_DIR/<name> against the
# installed prefix only: no package registry, no other prefix.
# Extra arguments go to the configure step.
function(build_against_prefix name)
  set(build "${WORK}/build-${name}")
  file(REMOVE_RECURSE "${build}")
  run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/${name}" -B "${build}" -G "${GENERATOR}"
      -DCMAKE_BUILD_TYPE=Release
      "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_INSTALL_PREFIX=${WORK}/vendor"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF ${ARGN})
  file(STRINGS "${build}/CMakeCache.txt" found REGEX "^omnirt_DIR:")
  if(NOT found MATCHES "=${prefix}/")
    message(FATAL_ERROR "${name} found omnirt outside the installed prefix: ${found}")
  endif()
  run("${CMAKE_COMMAND}" --build "${build}" -j2)
endfunction()

if(STEP STREQUAL "tree")
  file(REMOVE_RECURSE "${WORK}")
  run("${CMAKE_COMMAND}" --install "${BUILD_TREE}" --prefix "${prefix}")
  foreach(file include/omnirt/omnirt.h include/omnirt/cpp/plugin.hpp include/omnirt/cpp/utf8.hpp
               ${LIBDIR}/libomnirt.so ${LIBDIR}/omnirt/omnirt-vet
               ${PLUGIN_DIR}/libomnirt_backend_cpu.so ${BINDIR}/omnirt-probe
               ${LIBDIR}/cmake/omnirt/omnirtConfig.cmake
               ${LIBDIR}/cmake/omnirt/omnirtConfigVersion.cmake
               ${LIBDIR}/cmake/omnirt/omnirtTargets.cmake
               ${LIBDIR}/cmake/omnirt/OmniRTBackend.cmake ${LIBDIR}/cmake/omnirt/omnirt_plugin.map
               ${LIBDIR}/pkgconfig/omnirt.pc)
    if(NOT EXISTS "${prefix}/${file}")
      message(FATAL_ERROR "cmake --install did not install ${file}")
    endif()
  endforeach()

elseif(STEP STREQUAL "c_plugin")
  build_against_prefix(c_plugin)
  run("${CMAKE_COMMAND}" --install "${WORK}/build-c_plugin")
  if(NOT EXISTS "${vendor_plugins}/libomnirt_backend_hostmem.so")
    message(FATAL_ERROR "omnirt_add_backend() did not install the plugin to ${vendor_plugins}")
  endif()

elseif(STEP STREQUAL "probe_lists_c_plugin")
  # The installed host vets with the installed helper, into a cache of this test's own.
  set(ENV{OMNIRT_VETTING} always)
  set(ENV{OMNIRT_VETTING_CACHE_DIR} "${WORK}/vetting-cache")
  run("${prefix}/${BINDIR}/omnirt-probe" --plugin-dir "${vendor_plugins}" --json)
  set(json "${run_output}")
  string(JSON schema GET "${json}" schema_version)
  if(NOT schema EQUAL 1)
    message(FATAL_ERROR "omnirt-probe --json schema_version ${schema}; this test reads 1")
  endif()
  string(JSON count LENGTH "${json}" backends)
  set(listed FALSE)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" backends ${i} name)
      if(name STREQUAL "hostmem")
        string(JSON available GET "${json}" backends ${i} available)
        string(JSON path GET "${json}" backends ${i} path)
        if(NOT available OR NOT path MATCHES "^${vendor_plugins}/")
          message(FATAL_ERROR "hostmem is listed but not available from ${vendor_plugins}:\n${json}")
        endif()
        set(listed TRUE)
      endif()
    endforeach()
  endif()
  string(JSON candidates LENGTH "${json}" candidates)
  math(EXPR last "${candidates} - 1")
  foreach(i RANGE ${last})
    string(JSON path GET "${json}" candidates ${i} path)
    if(path MATCHES "libomnirt_backend_hostmem.so$")
      string(JSON vetting GET "${json}" candidates ${i} vetting)
      if(NOT vetting STREQUAL "passed")
        message(FATAL_ERROR "the installed host did not vet hostmem with its helper (${vetting}):\n${json}")
      endif()
    endif()
  endforeach()
  if(NOT listed)
    message(FATAL_ERROR "omnirt-probe does not list hostmem:\n${json}")
  endif()
  # The installed tools reach libomnirt.so through $ORIGIN/../lib; the
  # directories and files they show are normalized nonetheless.
  foreach(list search_path backends candidates)
    string(JSON count LENGTH "${json}" ${list})
    if(count EQUAL 0)
      continue()
    endif()
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON path GET "${json}" ${list} ${i} path)
      if(path MATCHES "/\\.\\.?(/|$)")
        message(FATAL_ERROR "omnirt-probe shows an unnormalized path in ${list}: ${path}")
      endif()
    endforeach()
  endforeach()

elseif(STEP STREQUAL "consumer_cmake")
  # WORK is no system prefix: a path that leaks another package's prefix shows.
  build_against_prefix(consumer "-DOMNIRT_EXPECTED_PREFIX=${prefix}"
                       "-DOMNIRT_EXPECTED_VERSION=${VERSION}" "-DOMNIRT_EXPECTED_PLUGIN_DIR=${PLUGIN_DIR}")
  run("${WORK}/build-consumer/omnirt_consumer" "${vendor_plugins}" hostmem)
  if(NOT run_output MATCHES "^ok hostmem ")
    message(FATAL_ERROR "unexpected output: ${run_output}")
  endif()

elseif(STEP STREQUAL "consumer_pkgconfig")
  find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
  # Every variable of omnirt.pc points into the prefix it was installed to.
  foreach(variable prefix libdir includedir plugindir)
    run("${PKG_CONFIG}" --variable=${variable} omnirt)
    string(STRIP "${run_output}" value)
    get_filename_component(value "${value}" ABSOLUTE)
    if(NOT value MATCHES "^${prefix}(/|$)")
      message(FATAL_ERROR "omnirt.pc: ${variable}=${value} is not under ${prefix}")
    endif()
  endforeach()
  run("${PKG_CONFIG}" --cflags --libs omnirt)
  string(STRIP "${run_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(exe "${WORK}/build-pkgconfig/omnirt_consumer")
  file(MAKE_DIRECTORY "${WORK}/build-pkgconfig")
  run("${CXX_COMPILER}" -std=c++17 "${SOURCE_DIR}/consumer/consumer.cpp" ${flags} -o "${exe}")
  # pkg-config gives no run path; point the loader at the prefix as users do.
  set(ENV{LD_LIBRARY_PATH} "${prefix}/${LIBDIR}")
  run("${exe}" "${vendor_plugins}" hostmem)
  if(NOT run_output MATCHES "^ok hostmem ")
    message(FATAL_ERROR "unexpected output: ${run_output}")
  endif()

else()
  message(FATAL_ERROR "unknown STEP '${STEP}'")
endif()
