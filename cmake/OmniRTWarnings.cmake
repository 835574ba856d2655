# omnirt_target_warnings(<target>): the project's warning set, as errors.
function(omnirt_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror
                         $<$<COMPILE_LANGUAGE:C,CXX>:-Wshadow -Wno-unused-parameter>)
endfunction()
