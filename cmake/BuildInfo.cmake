# BuildInfo.cmake - records how kbench was built, for the run record's
# provenance: compiler id, version and flags as built, and the git commit
# at configure time (marked "-dirty" when the tree had local changes).

set(KB_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    set(KB_GIT_COMMIT "${_commit}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                    OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_dirty)
      string(APPEND KB_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()

string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
set(KB_BUILD_FLAGS "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_bt}}")
get_directory_property(_opts COMPILE_OPTIONS)
string(JOIN " " _opts_str ${_opts})
string(APPEND KB_BUILD_FLAGS " ${_opts_str} ${OpenMP_C_FLAGS}")
string(STRIP "${KB_BUILD_FLAGS}" KB_BUILD_FLAGS)

configure_file(${CMAKE_SOURCE_DIR}/cmake/buildinfo.h.in
               ${CMAKE_BINARY_DIR}/generated/buildinfo.h @ONLY)
