# tests/cuda_vendor.cmake - the cublas and cudnn backends without a GPU:
# the host-side geometry of the cuBLAS call of a row-major GEMM (cuDNN's
# descriptors: dnn_shape.cmake) and the no-device path of the CLI
# (SKIPPED, exit 0; itself skipped where a device exists).
kb_add_test(test_blas_geometry kb_backends)   # plain C, always built
if("cublas" IN_LIST KB_BACKEND_NAMES AND "cudnn" IN_LIST KB_BACKEND_NAMES)
  add_test(NAME cli_cuda_vendor_nodevice
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_cuda_vendor_nodevice.sh
                   $<TARGET_FILE:kbench> $<TARGET_FILE:jsonl_check>)
  set_tests_properties(cli_cuda_vendor_nodevice PROPERTIES SKIP_RETURN_CODE 77)
endif()
