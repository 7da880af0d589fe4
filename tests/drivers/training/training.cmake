# tests/drivers/training/training.cmake - `kbench run --training`: the step as problems
# (test_training.c: K-is-batch GEMMs, every catalog's step, training
# catalogs that contradict their model), and end to end on a tiny catalog
# (training_test.sh, one function per case): the roll-up's sum worked out
# again from the case records, an incomplete step, the first conv
# without BWD_D, the report's stacked bars, bad input.
kb_add_test(test_training kb_driver)
add_dependencies(test_training kb_data_catalog)

foreach(case IN ITEMS rollup_sum incomplete first_conv report_bars bad_input filtered)
  add_test(NAME training_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/training_test.sh ${case}
                   ${KB_TEST_KBENCH})
  set_tests_properties(training_${case} PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT OMP_NUM_THREADS=2)
endforeach()
