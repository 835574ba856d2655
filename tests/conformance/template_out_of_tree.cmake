# Builds the installed backend template out of tree against the installed
# package only, then runs the installed kit on it: it must pass. The installed
# probe then shows that an option the template does not know fails its
# creation, naming the option.
# -DPREFIX=<install prefix> -DWORK=<scratch dir> -DGENERATOR=<cmake generator> -DCXX=<compiler>
set(source "${PREFIX}/share/omnirt/backend-template")
file(REMOVE_RECURSE "${WORK}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}")
  endif()
endfunction()

run("${CMAKE_COMMAND}" -S "${source}" -B "${WORK}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_CXX_COMPILER=${CXX}")
run("${CMAKE_COMMAND}" --build "${WORK}")
run("${PREFIX}/bin/omnirt-conformance" "${WORK}/libomnirt_backend_null.so"
    "--json=${WORK}/conformance.json")

file(WRITE "${WORK}/misspelt.yaml" "backends:\n  \"null\":\n    options:\n      colour: red\n")
execute_process(COMMAND "${PREFIX}/bin/omnirt-probe" --no-env --no-installed --plugin-dir "${WORK}"
                        --config "${WORK}/misspelt.yaml" --json
                OUTPUT_VARIABLE probe ERROR_VARIABLE probe_err)
if(NOT probe MATCHES "null: unknown option 'colour' \\(known options: none\\)")
  message(FATAL_ERROR "the template accepted an unknown option:\n${probe}\n${probe_err}")
endif()
