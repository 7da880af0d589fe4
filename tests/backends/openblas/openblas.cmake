# tests/backends/openblas/openblas.cmake - what only the openblas backend
# needs: the OpenBLAS core-type check and its warning.  (Its numerics run
# in tests/backends/backends.cmake.)
if("openblas" IN_LIST KB_BACKEND_NAMES)
  kb_add_test(test_openblas_warning kb_backends)
endif()
# The fallback it warns of is x86's (AVX2 kernels on an AVX-512 CPU).
if("openblas" IN_LIST KB_BACKEND_NAMES AND KB_ARCH STREQUAL "x86_64")
  add_test(NAME cli_openblas_warning
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_openblas_warning.sh
                   ${KB_TEST_KBENCH} ${KB_TEST_JSONL_CHECK})
  set_tests_properties(cli_openblas_warning PROPERTIES SKIP_RETURN_CODE 77)
endif()
