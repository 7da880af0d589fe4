# tests/backends/gpu/gpu.cmake - the GPU backends (backends/gpu/ and the
# vendor ones) with or without a device.  GPU tests have LABELS gpu
# (`ctest -L gpu`); on a machine without the device such a test exits 77
# and ctest reports it skipped (SKIP_RETURN_CODE), never passed.  The GPU
# backends' numerics are gpu_backend_<name> (tests/backends/backends.cmake).

# The GPU kernels' index math (backends/gpu/gpu_conv_index.h), checked on
# the CPU against the reference: needs neither a GPU nor a GPU build.
add_executable(test_gpu_conv_index ${CMAKE_CURRENT_LIST_DIR}/test_gpu_conv_index.c)
target_link_libraries(test_gpu_conv_index PRIVATE kb_reference)
add_test(NAME gpu_conv_index
         COMMAND test_gpu_conv_index
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/conv_edges.txt
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gemm_edges.txt
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gpu_index.txt)
set_tests_properties(gpu_conv_index PROPERTIES LABELS gpu
                     ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive")

# Every GPU backend of the registry without its device: SKIPPED reasons,
# describe()'s warning, configure()'s checks.  Exits 77, reported skipped,
# where a device is present or no GPU backend is built.
kb_add_test(test_gpu_nodevice kb_backends)
set_tests_properties(test_gpu_nodevice PROPERTIES LABELS gpu
                     SKIP_RETURN_CODE 77)

# The cudnn and miopen backends' host-side descriptors
# (backends/gpu/dnn_shape.c), which need no DNN library: plain C in
# kb_backends, checked on every build.
kb_add_test(test_dnn_shape kb_backends)

# The cublas and cudnn backends without a GPU: the host-side geometry of
# the cuBLAS call of a row-major GEMM, and the no-device path of the CLI
# (SKIPPED, exit 0; itself skipped where a device exists).
kb_add_test(test_blas_geometry kb_backends)   # plain C, always built
if("cublas" IN_LIST KB_BACKEND_NAMES AND "cudnn" IN_LIST KB_BACKEND_NAMES)
  add_test(NAME cli_cuda_vendor_nodevice
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_cuda_vendor_nodevice.sh
                   ${KB_TEST_KBENCH} ${KB_TEST_JSONL_CHECK})
  set_tests_properties(cli_cuda_vendor_nodevice PROPERTIES SKIP_RETURN_CODE 77)
endif()

# fp32 means fp32: the fine validation fill (reference/fill.c; its bound
# is test_fill_fine, tests/reference/).  The cases below take their
# backends from `kbench list backends --json` (gpu_test.sh): the CPU ones,
# and the GPU ones by their device.
set(kb_fp32_strict ${CMAKE_CURRENT_SOURCE_DIR}/inputs/fp32_strict.txt)
set(kb_any_gpu OFF)
foreach(name IN LISTS KB_BACKEND_NAMES)
  # gpusim's simulated device has its own tests (gpusim.cmake)
  if(NOT KB_BACKEND_DEVICE_${name} MATCHES "^(cpu|gpusim)$")
    set(kb_any_gpu ON)
  endif()
endforeach()

set(kb_gpu_test bash ${CMAKE_CURRENT_LIST_DIR}/gpu_test.sh)
# The CPU backends' f32 is exact on the fine data (omp first: it must
# pass every case).
add_test(NAME fp32_fine_cpu
         COMMAND ${kb_gpu_test} fine_cpu ${KB_TEST_KBENCH}
                 ${kb_fp32_strict})
if(kb_any_gpu)
  # The vendor libraries' fp32 against TF32 (77: no device at all).
  add_test(NAME gpu_fp32_fine
           COMMAND ${kb_gpu_test} fine_gpu ${KB_TEST_KBENCH}
                   ${kb_fp32_strict})
  # No device: marked in the listing, a catalog SKIPPED, exit 0 (77: a
  # device is present).
  add_test(NAME gpu_no_device
           COMMAND ${kb_gpu_test} no_device ${KB_TEST_KBENCH}
                   ${kb_fp32_strict})
  set_tests_properties(gpu_fp32_fine gpu_no_device PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77)
endif()
# No device and no --backend: the GPU backends are left out of the run,
# named once, counted in the summary (77: a device is present, or no GPU
# backend is built; test_default_backends checks the same on any build).
add_test(NAME gpu_default_run
         COMMAND ${kb_gpu_test} default_run $<TARGET_FILE:kbench>
                 ${kb_fp32_strict})
set_tests_properties(gpu_default_run PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

include(${CMAKE_CURRENT_LIST_DIR}/gpusim.cmake)
