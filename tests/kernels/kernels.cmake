# tests/kernels/kernels.cmake - unit tests of kernels/: descriptors,
# counts, batch files, catalogs, conversions.
kb_add_test(test_descriptor kb_kernels)
kb_add_test(test_counts kb_kernels)
kb_add_test(test_batch kb_kernels)
kb_add_test(test_catalog kb_kernels)
kb_add_test(test_convert kb_kernels)
