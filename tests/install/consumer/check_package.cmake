# Checks what find_package(omnirt) exported against the prefix it was
# installed into (OMNIRT_EXPECTED_PREFIX, a non-system one in the install
# tests) and the version it was built as (OMNIRT_EXPECTED_VERSION): every
# variable, and where each imported target points.
function(expect_under_prefix what value)
  if(NOT value MATCHES "^${OMNIRT_EXPECTED_PREFIX}/")
    message(FATAL_ERROR "${what} is '${value}', not under the installed prefix "
                        "'${OMNIRT_EXPECTED_PREFIX}'")
  endif()
endfunction()

function(expect_equal what value expected)
  if(NOT value STREQUAL expected)
    message(FATAL_ERROR "${what} is '${value}', expected '${expected}'")
  endif()
endfunction()

expect_equal(omnirt_FOUND "${omnirt_FOUND}" 1)
expect_equal(omnirt_VERSION "${omnirt_VERSION}" "${OMNIRT_EXPECTED_VERSION}")
expect_under_prefix(omnirt_DIR "${omnirt_DIR}")
expect_equal(omnirt_PLUGIN_DIR "${omnirt_PLUGIN_DIR}"
             "${OMNIRT_EXPECTED_PREFIX}/${OMNIRT_EXPECTED_PLUGIN_DIR}")
if(NOT IS_DIRECTORY "${omnirt_PLUGIN_DIR}" OR NOT EXISTS "${omnirt_PLUGIN_DIR}/libomnirt_backend_cpu.so")
  message(FATAL_ERROR "omnirt_PLUGIN_DIR '${omnirt_PLUGIN_DIR}' does not hold the installed plugins")
endif()
# Relative: omnirt_add_backend() installs under the consumer's own prefix.
expect_equal(OMNIRT_PLUGIN_INSTALL_DIR "${OMNIRT_PLUGIN_INSTALL_DIR}" "${OMNIRT_EXPECTED_PLUGIN_DIR}")
if(NOT COMMAND omnirt_add_backend)
  message(FATAL_ERROR "find_package(omnirt) did not define omnirt_add_backend()")
endif()

foreach(target omnirt::abi omnirt::host)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "find_package(omnirt) did not define ${target}")
  endif()
  get_target_property(includes ${target} INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS includes)
    # The ABI's own headers; DLPack's may come from the system.
    if(EXISTS "${dir}/omnirt/omnirt.h")
      expect_under_prefix("${target} include directory" "${dir}")
      set(found_headers TRUE)
    endif()
  endforeach()
endforeach()
if(NOT found_headers)
  message(FATAL_ERROR "no imported target points at the installed omnirt/omnirt.h")
endif()
get_target_property(configs omnirt::host IMPORTED_CONFIGURATIONS)
foreach(config IN LISTS configs)
  get_target_property(location omnirt::host IMPORTED_LOCATION_${config})
  expect_under_prefix("omnirt::host location (${config})" "${location}")
endforeach()
message(STATUS "find_package(omnirt): every exported variable and target is under ${OMNIRT_EXPECTED_PREFIX}")
