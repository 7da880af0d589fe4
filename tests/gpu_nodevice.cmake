# tests/gpu_nodevice.cmake - every GPU backend of the registry without its
# device: SKIPPED reasons, describe()'s warning, configure()'s checks
# (LABELS gpu).  Exits 77, reported skipped, where a device is present or
# no GPU backend is built.
kb_add_test(test_gpu_nodevice kb_backends)
set_tests_properties(test_gpu_nodevice PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77)
