# tests/cmake/cmake.cmake - kbench away from this build: installed with no
# source tree, and configured against a broken optional package; and the
# compiler flags this build records.
add_test(NAME install_no_source
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR})
# A cross build's installed kbench runs under the emulator (the sysroot
# with it: install_test.sh then hides only the build tree).
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " kb_emulator)
  set_tests_properties(install_no_source PROPERTIES
    ENVIRONMENT "KB_TEST_EMULATOR=${kb_emulator}")
endif()
add_test(NAME configure_broken_package
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/configure_broken_test.sh ${CMAKE_COMMAND}
          ${PROJECT_SOURCE_DIR})

# The run record's build_flags are the C flags the compiler really got.
string(TOUPPER "${CMAKE_BUILD_TYPE}" kb_bt)
add_test(NAME build_flags_recorded
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/build_flags_test.py
          ${KB_TEST_KBENCH} ${CMAKE_BINARY_DIR} "${KB_NATIVE_FLAG}"
          "${CMAKE_C_FLAGS_${kb_bt}}" "${OpenMP_C_FLAGS}")
