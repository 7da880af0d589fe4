# tests/drivers/compare/compare.cmake - `kbench compare`: the
# statistics against hand-worked values, enumeration and SciPy, and the
# verb end to end on real `kbench run` results (compare_test.sh, one
# function per case).
kb_add_test(test_mannwhitney kb_compare)

# SciPy's p-values on random samples (compare_scipy.py writes them and
# runs test_mw_scipy); skipped where no python3 has SciPy.  The python3 on
# PATH first, then the system's, where Debian's python3-scipy installs.
add_executable(test_mw_scipy ${CMAKE_CURRENT_LIST_DIR}/test_mw_scipy.c)
target_link_libraries(test_mw_scipy PRIVATE kb_compare)
kb_test_program(KB_TEST_TEST_MW_SCIPY test_mw_scipy)
add_test(NAME test_mw_scipy
         COMMAND bash -c "for py in python3 /usr/bin/python3; do \
                            $py -c 'import scipy' 2>/dev/null && \
                            exec $py \"$0\" \"$1\" \"$2\"; done; \
                          echo 'no python3 with SciPy (python3-scipy): skipped'; exit 77"
                 ${CMAKE_CURRENT_LIST_DIR}/compare_scipy.py
                 ${KB_TEST_TEST_MW_SCIPY} ${CMAKE_CURRENT_BINARY_DIR}/mw_scipy_ref.txt)
set_tests_properties(test_mw_scipy PROPERTIES SKIP_RETURN_CODE 77)

foreach(case IN ITEMS two_runs backends unmatched bad_inputs gate few_samples usage)
  add_test(NAME compare_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_test.sh ${case}
                   ${KB_TEST_KBENCH})
  set_tests_properties(compare_${case} PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=2)
endforeach()
