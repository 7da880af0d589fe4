# tests/run.cmake - the run engine's parts: statistics, the timing loop,
# and the .npy writer behind --dump.
kb_add_test(test_stats kb_driver)
kb_add_test(test_timing kb_driver)
kb_add_test(test_npy kb_driver)
