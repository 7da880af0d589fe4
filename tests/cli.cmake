# tests/cli.cmake - the kbench program end to end: exit codes, list
# output, bad inputs, a small valid run, SIGINT; plus the writers and a
# deliberately wrong backend.  cli_test.sh holds one function per case.
kb_add_test(test_writers kb_driver)
kb_add_test(test_wrong_backend kb_cli)

add_executable(jsonl_check jsonl_check.c)
target_link_libraries(jsonl_check PRIVATE kb_driver)

foreach(case IN ITEMS help unknown_verb list_models list_kernels_backends
        list_layers list_layers_bad run_bad_inputs run_valid run_llc sigint)
  add_test(NAME cli_${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh ${case}
                   $<TARGET_FILE:kbench> $<TARGET_FILE:jsonl_check>)
endforeach()
set_tests_properties(cli_sigint PROPERTIES TIMEOUT 180)
