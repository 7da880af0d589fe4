# tests/cmake/cmake.cmake - kbench away from this build: installed with no
# source tree, and configured against a broken optional package.
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
