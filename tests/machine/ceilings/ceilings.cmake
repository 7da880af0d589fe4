# tests/machine/ceilings/ceilings.cmake - the ceilings file `kbench peaks`
# writes and the roofline reads.
kb_add_test(test_ceilings_io kb_ceilings)
