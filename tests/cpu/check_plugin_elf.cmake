# Checks a plugin file with readelf (cmake -DPLUGIN=... -DREADELF=... -P):
#  - it needs no libtorch/c10 or gloo library (the engine and the collectives
#    library are dlopen'ed lazily);
#  - its only defined dynamic symbol is omnirt_backend_entry (PLUGIN_RULES 2).
foreach(var PLUGIN READELF)
  if(NOT ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()

execute_process(COMMAND "${READELF}" -d -W "${PLUGIN}"
                OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${PLUGIN} failed (${rc})")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
if(NOT needed)
  message(FATAL_ERROR "no NEEDED entries in ${PLUGIN}: is it a shared object?")
endif()
foreach(entry IN LISTS needed)
  if(entry MATCHES "torch|c10|gloo")
    message(FATAL_ERROR "${PLUGIN} links libtorch or gloo: ${entry}")
  endif()
endforeach()

execute_process(COMMAND "${READELF}" --dyn-syms -W "${PLUGIN}"
                OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf --dyn-syms ${PLUGIN} failed (${rc})")
endif()
# Columns: Num: Value Size Type Bind Vis Ndx Name. Defined = Ndx is not UND.
string(REPLACE "\n" ";" lines "${symbols}")
set(exported "")
foreach(line IN LISTS lines)
  if(line MATCHES "^ *[0-9]+: +[0-9a-f]+ +[0-9]+ +[A-Z_]+ +(GLOBAL|WEAK|UNIQUE) +[A-Z]+ +([A-Z0-9]+) +([^ @]+)")
    if(NOT CMAKE_MATCH_2 STREQUAL "UND")
      list(APPEND exported "${CMAKE_MATCH_3}")
    endif()
  endif()
endforeach()
if(NOT exported STREQUAL "omnirt_backend_entry")
  message(FATAL_ERROR "${PLUGIN} must export only omnirt_backend_entry; it exports: ${exported}")
endif()
message(STATUS "${PLUGIN}: needs ${needed}; exports ${exported}")
