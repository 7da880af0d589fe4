# tests/reference/reference.cmake - reference kernels, data fill and
# validation; the fine validation fill's bound (fp32 means fp32), and every
# line of tests/inputs/fp32_strict.txt within it.
kb_add_test(test_reference kb_reference)
kb_add_test(test_fill kb_reference)
kb_add_test(test_compare kb_reference)
kb_add_test(test_projected kb_reference)
kb_add_test(test_fill_fine kb_reference
            ARGS ${CMAKE_CURRENT_SOURCE_DIR}/inputs/fp32_strict.txt)
