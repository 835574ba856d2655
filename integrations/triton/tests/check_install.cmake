# triton.install: `cmake --install` of the build into a scratch prefix puts the
# backend where Triton looks for it, under that prefix, and its RUNPATH finds
# the installed libomnirt.so. Run as
#   cmake -DBUILD_TREE=... -DPREFIX=... -DBACKEND=<lib/triton/backends/omnirt/libtriton_omnirt.so> -P check_install.cmake
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_TREE}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
set(backend "${PREFIX}/${BACKEND}")
if(NOT EXISTS "${backend}")
  message(FATAL_ERROR "the backend is not at ${backend}:\n${out}")
endif()
execute_process(COMMAND ldd "${backend}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT out MATCHES "libomnirt\\.so\\.[0-9]+ => ${PREFIX}/")
  message(FATAL_ERROR "the installed backend does not find the installed libomnirt.so:\n${out}${err}")
endif()
file(REMOVE_RECURSE "${PREFIX}")
