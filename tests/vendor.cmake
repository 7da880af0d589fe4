# tests/vendor.cmake - what only the vendor backends need: the OpenBLAS
# core-type check and its warning; oneDNN's fpmath attribute and SKIPPED
# reasons.  (Their numerics run in backends.cmake.)
if("openblas" IN_LIST KB_BACKEND_NAMES)
  kb_add_test(test_openblas_warning kb_backends)
  add_test(NAME cli_openblas_warning
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_openblas_warning.sh
                   $<TARGET_FILE:kbench> $<TARGET_FILE:jsonl_check>)
  set_tests_properties(cli_openblas_warning PROPERTIES SKIP_RETURN_CODE 77)
endif()
if("onednn" IN_LIST KB_BACKEND_NAMES)
  kb_add_test(test_onednn kb_backends)
endif()
