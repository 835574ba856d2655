# The Debian packages as an operator meets them (see CMakeLists.txt):
#   cmake -DWORK=... -DSPECS=a|b -DBUILD_DIR=... -DSOURCE_DIR=... -DBACKENDS=cpu=0.1.0|...
#         -DREMOVE=<backend> -DUPGRADE=<backend> ... -P debs_test.cmake
# WORK holds everything it makes and is removed at the end, pass or fail.
cmake_minimum_required(VERSION 3.20)

string(REPLACE "|" ";" BACKENDS "${BACKENDS}")
set(root "${WORK}/root")
set(admindir "${root}/var/lib/dpkg")
set(build_script "${SOURCE_DIR}/cmake/omnirt_deb_build.cmake")

function(fail)
  file(REMOVE_RECURSE "${WORK}")
  message(FATAL_ERROR ${ARGN})
endfunction()

# Runs a command; any failure ends the test with its output.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    fail("`${command}` failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# dpkg on the throwaway root, with its own database. --force-depends: the
# system libraries the packages depend on (libc6, libtorch...) are not in this
# database, but the root's binaries use the machine's. The packages have no
# maintainer scripts; the ldconfig trigger has no taker in this database.
# dpkg wants ldconfig in PATH, which a user's PATH may lack.
set(ENV{PATH} "$ENV{PATH}:/usr/sbin:/sbin")
set(dpkg_force --force-depends)
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT uid STREQUAL "0")
  list(APPEND dpkg_force --force-not-root)
endif()
function(dpkg)
  run(dpkg "--root=${root}" "--log=${WORK}/dpkg.log" ${dpkg_force} ${ARGN})
  set(run_output "${run_output}" PARENT_SCOPE)
endfunction()

function(installed_version package out)
  execute_process(COMMAND dpkg-query "--admindir=${admindir}" -W "-f=\${db:Status-Abbrev}\${Version}" "${package}"
                  OUTPUT_VARIABLE line ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND line MATCHES "^ii +(.+)$")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# The installed omnirt-probe, on the root's libomnirt and plugin directory
# only: --no-env ignores OMNIRT_PLUGIN_PATH/OMNIRT_CONFIG, LD_LIBRARY_PATH
# leaves the loader no other libomnirt.so.1. Checks that exactly the backends
# "name=version;..." EXPECTED were found, from the root, all loaded.
function(probe_expect expected)
  run("${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${root}/usr/${LIBDIR}"
      "${root}/usr/bin/omnirt-probe" --json --verbose --no-env)
  set(json "${run_output}")
  set(plugin_dir "${root}/usr/${PLUGIN_DIR}")
  string(JSON count LENGTH "${json}" search_path)
  set(searched_root FALSE)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON source GET "${json}" search_path ${i} source)
    string(JSON path GET "${json}" search_path ${i} path)
    if(source STREQUAL "installed" AND path STREQUAL "${plugin_dir}")
      set(searched_root TRUE)
    endif()
  endforeach()
  if(NOT searched_root)
    fail("the probe did not search ${plugin_dir} as its installed directory "
         "(a libomnirt from outside the root?):\n${json}")
  endif()
  set(found "")
  string(JSON count LENGTH "${json}" backends)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" backends ${i} name)
      string(JSON version GET "${json}" backends ${i} plugin_version)
      string(JSON path GET "${json}" backends ${i} path)
      if(NOT path STREQUAL "${plugin_dir}/libomnirt_backend_${name}.so")
        fail("backend ${name} loaded from ${path}, not from ${plugin_dir}")
      endif()
      list(APPEND found "${name}=${version}")
      if(name STREQUAL "cpu" AND CPU_ENGINE)
        # The engine package puts libomnirt_cpu_engine.so where the plugin looks.
        string(JSON formats GET "${json}" backends ${i} capabilities module_formats)
        if(NOT formats MATCHES "torchscript")
          fail("cpu does not find its engine (module formats ${formats}):\n${json}")
        endif()
      endif()
      if(name STREQUAL "cpu" AND CPU_GLOO)
        # The gloo package puts libomnirt_cpu_gloo.so where the plugin looks.
        string(JSON library GET "${json}" backends ${i} collectives library)
        if(NOT library MATCHES "gloo")
          fail("cpu does not find its collectives library (${library}):\n${json}")
        endif()
      endif()
    endforeach()
  endif()
  string(JSON count LENGTH "${json}" candidates)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON loaded GET "${json}" candidates ${i} loaded)
    if(NOT loaded)
      string(JSON candidate GET "${json}" candidates ${i})
      fail("a candidate in the root was rejected: ${candidate}")
    endif()
  endforeach()
  list(SORT found)
  list(SORT expected)
  if(NOT found STREQUAL expected)
    fail("omnirt-probe in the root lists backends '${found}', expected '${expected}':\n${json}")
  endif()
  message(STATUS "omnirt-probe in the root: ${found}")
endfunction()

# SHA-256 of every file dpkg says the package owns.
function(package_checksums package out)
  dpkg(-L "${package}")
  string(REPLACE "\n" ";" paths "${run_output}")
  set(sums "")
  foreach(path IN LISTS paths)
    if(NOT path STREQUAL "" AND NOT IS_DIRECTORY "${root}${path}")
      file(SHA256 "${root}${path}" sum)
      string(APPEND sums "${sum} ${path}\n")
    endif()
  endforeach()
  set(${out} "${sums}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")

# 1. Every package of this build.
run("${CMAKE_COMMAND}" "-DSPECS=${SPECS}" "-DOUTPUT_DIR=${WORK}/debs" -P "${build_script}")
file(GLOB debs "${WORK}/debs/*.deb")

# 2. Every installed file in exactly one package: the staging roots against a
#    full `cmake --install` (which knows every component).
run("${CMAKE_COMMAND}" -E env "DESTDIR=${WORK}/full" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix /usr)
file(GLOB_RECURSE all LIST_DIRECTORIES false RELATIVE "${WORK}/full" "${WORK}/full/*")
file(GLOB stagings LIST_DIRECTORIES true "${WORK}/debs/.staging/*")
set(owned "")
foreach(staging IN LISTS stagings)
  get_filename_component(package "${staging}" NAME)
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${staging}" "${staging}/*")
  list(FILTER files EXCLUDE REGEX "^(DEBIAN/|usr/share/doc/${package}/(copyright|changelog\\.gz)$)")
  foreach(file IN LISTS files)
    if(DEFINED owner_${file})
      fail("${file} is in both ${owner_${file}} and ${package}")
    endif()
    set(owner_${file} "${package}")
    list(APPEND owned "${file}")
  endforeach()
endforeach()
set(unowned ${all})
list(REMOVE_ITEM unowned ${owned})
if(unowned)
  fail("installed by `cmake --install` but in no package (install it in a packaged component): ${unowned}")
endif()

# 3. Install them all into the throwaway root.
file(MAKE_DIRECTORY "${admindir}/info" "${admindir}/updates" "${admindir}/triggers")
file(TOUCH "${admindir}/status" "${admindir}/available")
dpkg(--install ${debs})
foreach(entry IN LISTS BACKENDS)
  string(REGEX REPLACE "=.*" "" name "${entry}")
  string(REGEX REPLACE ".*=" "" version "${entry}")
  installed_version(omnirt-backend-${name} got)
  if(NOT got STREQUAL version)
    fail("omnirt-backend-${name} installed as '${got}', expected ${version}")
  endif()
  if(name STREQUAL UPGRADE)
    set(old_version "${version}")
  endif()
endforeach()
probe_expect("${BACKENDS}")
installed_version(${HOST_PACKAGE} host_version)
package_checksums(${HOST_PACKAGE} host_sums_before)

# 4. A newer UPGRADE backend: a build of that plugin alone, its version bumped
#    by -DOMNIRT_BACKEND_<NAME>_VERSION, nothing else changed.
string(REGEX MATCH "^([0-9]+\\.[0-9]+\\.)([0-9]+)" ignored "${old_version}")
math(EXPR patch "${CMAKE_MATCH_2} + 1")
set(new_version "${CMAKE_MATCH_1}${patch}")
string(TOUPPER "${UPGRADE}" upper)
set(off "")
foreach(backend cpu cuda ascend cambricon)
  if(NOT backend STREQUAL UPGRADE)
    string(TOUPPER "${backend}" b)
    list(APPEND off "-DOMNIRT_BUILD_BACKEND_${b}=OFF")
  endif()
endforeach()
set(bump "${WORK}/bump")
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${bump}" -G "${GENERATOR}"
    "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}" "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_INSTALL_PREFIX=${INSTALL_PREFIX}" "-DCMAKE_INSTALL_LIBDIR=${LIBDIR}"
    "-DOMNIRT_BACKEND_${upper}_VERSION=${new_version}" ${off}
    -DOMNIRT_BUILD_TESTS=OFF -DOMNIRT_BUILD_BENCHMARKS=OFF -DOMNIRT_BUILD_TOOLS=OFF
    -DOMNIRT_BUILD_EXAMPLES=OFF -DOMNIRT_BUILD_PYTHON=OFF -DOMNIRT_BUILD_TORCH_ENGINES=OFF)
run("${CMAKE_COMMAND}" --build "${bump}" --target omnirt_backend_${UPGRADE})
run("${CMAKE_COMMAND}" "-DSPECS=${bump}/omnirt-debs/omnirt-backend-${UPGRADE}.cmake"
    "-DOUTPUT_DIR=${WORK}/debs-bump" -P "${build_script}")
file(GLOB upgrade_deb "${WORK}/debs-bump/omnirt-backend-${UPGRADE}_${new_version}_*.deb")
if(NOT upgrade_deb)
  fail("no omnirt-backend-${UPGRADE}_${new_version} package was built")
endif()

# Every package lintian-clean at the error level (warnings: README.md).
find_program(LINTIAN lintian)
if(LINTIAN)
  # lintian leaves its ELF caches (mldbm-elf-*) in TMPDIR: give it one inside WORK.
  file(MAKE_DIRECTORY "${WORK}/lintian-tmp")
  run("${CMAKE_COMMAND}" -E env "TMPDIR=${WORK}/lintian-tmp" "${LINTIAN}" --fail-on error ${debs} ${upgrade_deb})
  message(STATUS "lintian (fails on errors only):\n${run_output}")
else()
  message(STATUS "lintian not found (Debian: lintian): the packages were not linted")
endif()

# 5. Remove REMOVE's package, upgrade UPGRADE's: the probe shows exactly the
#    rest, UPGRADE at its new version; the host package is untouched.
dpkg(--remove omnirt-backend-${REMOVE})
dpkg(--install ${upgrade_deb})
installed_version(omnirt-backend-${REMOVE} got)
if(NOT got STREQUAL "")
  fail("omnirt-backend-${REMOVE} is still installed (${got})")
endif()
installed_version(omnirt-backend-${UPGRADE} got)
if(NOT got STREQUAL new_version)
  fail("omnirt-backend-${UPGRADE} is '${got}' after the upgrade, expected ${new_version}")
endif()
set(expected "")
foreach(entry IN LISTS BACKENDS)
  if(entry MATCHES "^${REMOVE}=")
    continue()
  elseif(entry MATCHES "^${UPGRADE}=")
    set(entry "${UPGRADE}=${new_version}")
  endif()
  list(APPEND expected "${entry}")
endforeach()
probe_expect("${expected}")
installed_version(${HOST_PACKAGE} got)
package_checksums(${HOST_PACKAGE} host_sums_after)
if(NOT got STREQUAL host_version OR NOT host_sums_after STREQUAL host_sums_before)
  fail("${HOST_PACKAGE} changed: ${host_version} -> ${got}\nbefore:\n${host_sums_before}after:\n${host_sums_after}")
endif()
message(STATUS "${HOST_PACKAGE} ${host_version} untouched:\n${host_sums_after}")

file(REMOVE_RECURSE "${WORK}")
