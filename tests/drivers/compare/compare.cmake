# tests/drivers/compare/compare.cmake - `kbench compare`: the
# statistics against hand-worked values, enumeration and SciPy, and the
# verb end to end on real `kbench run` results (compare_test.sh, one
# function per case).
kb_add_test(test_mannwhitney kb_compare)

# SciPy's p-values on random samples (compare_scipy.py writes them and
# runs test_mw_scipy).  The python3 on PATH first, then the system's,
# where Debian's python3-scipy installs.
add_executable(test_mw_scipy ${CMAKE_CURRENT_LIST_DIR}/test_mw_scipy.c)
target_link_libraries(test_mw_scipy PRIVATE kb_compare)
kb_add_reference_test(test_mw_scipy SCRIPT ${CMAKE_CURRENT_LIST_DIR}/compare_scipy.py
                      MODULE scipy PYTHONS python3 /usr/bin/python3)

foreach(case IN ITEMS two_runs backends unmatched bad_inputs gate few_samples usage)
  add_test(NAME compare_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_test.sh ${case}
                   ${KB_TEST_KBENCH})
  set_tests_properties(compare_${case} PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=2)
endforeach()
