# tests/gpu.cmake - the GPU backends' tests (LABELS gpu: `ctest -L gpu`)
# and fp32 means fp32 (the fine validation fill, reference/fill.c).  On a
# machine without the device a GPU test exits 77 and ctest reports it
# skipped (SKIP_RETURN_CODE), never passed.

# The fine fill's bound, and every line of fp32_strict.txt within it.
add_executable(test_fill_fine test_fill_fine.c)
target_link_libraries(test_fill_fine PRIVATE kb_reference)
set(kb_fp32_strict ${CMAKE_CURRENT_SOURCE_DIR}/inputs/fp32_strict.txt)
add_test(NAME test_fill_fine COMMAND test_fill_fine ${kb_fp32_strict})

# Each GPU backend: the vendor its no-device reason names, and the cases
# per kernel test_backend requires of it on the edge inputs: `+` at least
# one (exact counts need the device to measure), 0 none (a kernel it does
# not have).  A backend is tested when its folder built it.
set(kb_gpu_vendor_cuda CUDA)
set(kb_gpu_vendor_cublas CUDA)
set(kb_gpu_vendor_cudnn CUDA)
set(kb_gpu_vendor_hip HIP)
set(kb_gpu_vendor_rocblas HIP)
set(kb_gpu_vendor_miopen HIP)
set(kb_gpu_expect_cuda conv2d=+,conv3d=+,gemm=+,bnorm=+)
set(kb_gpu_expect_hip ${kb_gpu_expect_cuda})
set(kb_gpu_expect_cublas conv2d=0,conv3d=0,gemm=+,bnorm=0)
set(kb_gpu_expect_rocblas ${kb_gpu_expect_cublas})
set(kb_gpu_expect_cudnn conv2d=+,conv3d=+,gemm=0,bnorm=+)
set(kb_gpu_expect_miopen ${kb_gpu_expect_cudnn})

# KB_BACKENDS_BUILT entries read "cuda (CUDA 13.0, 90)": the first word.
set(kb_gpu_backends "")
set(kb_cpu_fine "")
foreach(entry IN LISTS KB_BACKENDS_BUILT)
  string(REGEX MATCH "^[a-z0-9_]+" name "${entry}")
  if(DEFINED kb_gpu_vendor_${name})
    list(APPEND kb_gpu_backends "${name}=${kb_gpu_vendor_${name}}")
    add_test(NAME gpu_backend_${name}
             COMMAND test_backend ${name} ${kb_gpu_expect_${name}}
                     ${kb_backend_inputs})
    set_tests_properties(gpu_backend_${name} PROPERTIES
      LABELS gpu SKIP_RETURN_CODE 77)
  elseif(name MATCHES "^(omp|openblas|onednn)$")
    list(APPEND kb_cpu_fine "${name}=cpu")
  endif()
endforeach()

set(kb_gpu_test bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu_test.sh)
# The CPU backends' f32 is exact on the fine data (omp first: it must
# pass every case).
add_test(NAME fp32_fine_cpu
         COMMAND ${kb_gpu_test} fine_cpu $<TARGET_FILE:kbench>
                 ${kb_fp32_strict} ${kb_cpu_fine})
if(kb_gpu_backends)
  # The vendor libraries' fp32 against TF32 (77: no device at all).
  add_test(NAME gpu_fp32_fine
           COMMAND ${kb_gpu_test} fine_gpu $<TARGET_FILE:kbench>
                   ${kb_fp32_strict} ${kb_gpu_backends})
  # No device: marked in the listing, a catalog SKIPPED, exit 0 (77: a
  # device is present).
  add_test(NAME gpu_no_device
           COMMAND ${kb_gpu_test} no_device $<TARGET_FILE:kbench>
                   ${kb_fp32_strict} ${kb_gpu_backends})
  set_tests_properties(gpu_fp32_fine gpu_no_device PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77)
endif()
