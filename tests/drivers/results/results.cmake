# tests/drivers/results/results.cmake - the one results reader.
kb_add_test(test_results_read kb_results)
