# tests/cmake/cmake.cmake - kbench away from this build: installed with no
# source tree, and configured against a broken optional package.
add_test(NAME install_no_source
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR})
add_test(NAME configure_broken_package
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/configure_broken_test.sh ${CMAKE_COMMAND}
          ${PROJECT_SOURCE_DIR})
