# Runs the kit on the broken fixture (broken_plugin.c) and passes only if the
# kit fails it — exit status 1, no crash — naming each rule the fixture
# breaks, while still passing what the fixture does right.
# -DKIT=<omnirt-conformance> -DPLUGIN=<libomnirt_backend_broken.so> -DREPORT=<json>
execute_process(COMMAND "${KIT}" "${PLUGIN}" "--json=${REPORT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "expected the kit to exit with 1 (tests failed), got '${rc}'")
endif()
if(NOT out MATCHES "\n[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped\n")
  message(FATAL_ERROR "no summary line 'N passed, N failed, N skipped' with failures")
endif()

# test name -> the rule the kit must cite for it
set(must_fail
  "Binary.ExportsOnlyTheEntrySymbol=rule 2 "
  "Loading.RefusesHostRangesWithoutItsMajor=rule 3 "
  "Binary.LoadsNoLibraryAndStartsNoThreadWhileLoading=rule 4 "
  "StructSizes.CapabilitiesStayWithinStructSize=rule 6 "
  "Features.MatchBehaviour/HOST_ALLOC=rule 7 "
  "Errors.DoubleFreeIsAStatusNotACrash=rule 8 "
  "Binary.LeavesProcessWideStateAlone=rule 11 "
  "Memory.RoundTripsThroughEachDevice=contract ")
# What the fixture does right must not be reported as broken.
set(must_pass
  "Loading.FileNameMatchesBackendName"
  "Loading.IsAvailableIsStableAndSaysWhyNot"
  "Devices.InfoDescribesEachDevice"
  "Memory.SetWritesTheLowByteOfValueExactlyInRange"
  "Memory.ZeroSizesAndNullFreesAreNoOps"
  "Features.MatchBehaviour/MEM_INFO"
  # stream_create is set without the STREAMS bit: the host never calls it.
  "Features.MatchBehaviour/STREAMS")

file(READ "${REPORT}" json)
string(JSON count LENGTH "${json}" tests)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" tests ${i} name)
  string(JSON result GET "${json}" tests ${i} result)
  string(JSON checks GET "${json}" tests ${i} checks)
  set(result_${name} "${result}")
  set(checks_${name} "${checks}")
  if(result STREQUAL "skipped")
    list(APPEND skipped "${name}")
  endif()
endforeach()

set(problems "")
foreach(entry IN LISTS must_fail)
  string(REGEX MATCH "^([^=]+)=(.*)$" _ "${entry}")
  set(name "${CMAKE_MATCH_1}")
  set(rule "${CMAKE_MATCH_2}")
  if(NOT result_${name} STREQUAL "failed")
    string(APPEND problems "  ${name} should fail, was '${result_${name}}'\n")
  elseif(NOT "${checks_${name}} " MATCHES "^${rule}")
    string(APPEND problems "  ${name} should cite '${rule}', cites '${checks_${name}}'\n")
  endif()
endforeach()
foreach(name IN LISTS must_pass)
  if(NOT result_${name} STREQUAL "passed")
    string(APPEND problems "  ${name} should pass, was '${result_${name}}'\n")
  endif()
endforeach()
# What the kit prints: each skip once (the summary, with its reason), and the
# kit's sources by file name, not by their paths on the machine that built it.
foreach(name IN LISTS skipped)
  set(mentions 0)
  foreach(form "${name} " "${name}\n")
    string(REPLACE "${form}" "" rest "${out}")
    string(LENGTH "${out}" all)
    string(LENGTH "${rest}" left)
    string(LENGTH "${form}" one)
    math(EXPR mentions "${mentions} + (${all} - ${left}) / ${one}")
  endforeach()
  if(NOT mentions EQUAL 1)
    string(APPEND problems "  the skip of ${name} is printed ${mentions} times, not once\n")
  endif()
endforeach()
if(NOT skipped)
  string(APPEND problems "  the broken plugin skipped nothing; the output check needs a skip\n")
endif()
if(out MATCHES "tools/conformance/")
  string(APPEND problems "  the kit prints paths of its sources on the build machine\n")
endif()

if(problems)
  message(FATAL_ERROR "the kit did not judge the broken plugin as expected:\n${problems}")
endif()
