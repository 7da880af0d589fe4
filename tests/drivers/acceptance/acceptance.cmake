# tests/drivers/acceptance/acceptance.cmake - accepting nodes: the bands `kbench baseline`
# makes and reads back, `kbench check`'s verdicts, and both verbs end to
# end on real `kbench run` results (acceptance_test.sh, one function per
# case), their JUnit XML parsed with libxml2 (tests/junit_check.c).
kb_add_test(test_bands kb_acceptance)
kb_add_test(test_verdict kb_acceptance)

pkg_check_modules(LIBXML2 QUIET IMPORTED_TARGET libxml-2.0)
if(LIBXML2_FOUND)
  add_executable(junit_check ${CMAKE_CURRENT_SOURCE_DIR}/junit_check.c)
  kb_test_program(KB_TEST_JUNIT_CHECK junit_check)
  target_link_libraries(junit_check PRIVATE PkgConfig::LIBXML2)
  set(kb_junit_check ${KB_TEST_JUNIT_CHECK})
else()
  message(STATUS "tests: libxml2 not found, acceptance_junit skipped")
  set(kb_junit_check none)
endif()
foreach(case IN ITEMS pass several_nodes slow_node correctness missing_case
        skipped roof_fraction junit bad_results bad_bands no_match usage)
  add_test(NAME acceptance_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/acceptance_test.sh ${case}
                   ${KB_TEST_KBENCH} ${kb_junit_check})
  set_tests_properties(acceptance_${case} PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=2)
endforeach()
