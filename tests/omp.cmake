# tests/omp.cmake - the omp backend and the registry against the reference.
kb_add_test(test_omp kb_backends kb_reference)
