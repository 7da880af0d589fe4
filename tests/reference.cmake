# tests/reference.cmake - reference kernels, data fill and validation.
kb_add_test(test_reference kb_reference)
kb_add_test(test_fill kb_reference)
kb_add_test(test_compare kb_reference)
kb_add_test(test_projected kb_reference)
