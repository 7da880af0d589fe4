# tests/gpu.cmake - the GPU backends' tests (LABELS gpu: `ctest -L gpu`)
# and fp32 means fp32 (the fine validation fill, reference/fill.c).  On a
# machine without the device a GPU test exits 77 and ctest reports it
# skipped (SKIP_RETURN_CODE), never passed.

# The fine fill's bound, and every line of fp32_strict.txt within it.
add_executable(test_fill_fine test_fill_fine.c)
target_link_libraries(test_fill_fine PRIVATE kb_reference)
set(kb_fp32_strict ${CMAKE_CURRENT_SOURCE_DIR}/inputs/fp32_strict.txt)
add_test(NAME test_fill_fine COMMAND test_fill_fine ${kb_fp32_strict})

# The GPU backends' own tests are gpu_backend_<name> (backends.cmake).
# The cases below take their backends from `kbench list backends --json`
# (gpu_test.sh): the CPU ones, and the GPU ones by their device.
set(kb_any_gpu OFF)
foreach(name IN LISTS KB_BACKEND_NAMES)
  if(NOT KB_BACKEND_DEVICE_${name} STREQUAL "cpu")
    set(kb_any_gpu ON)
  endif()
endforeach()

set(kb_gpu_test bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu_test.sh)
# The CPU backends' f32 is exact on the fine data (omp first: it must
# pass every case).
add_test(NAME fp32_fine_cpu
         COMMAND ${kb_gpu_test} fine_cpu $<TARGET_FILE:kbench>
                 ${kb_fp32_strict})
if(kb_any_gpu)
  # The vendor libraries' fp32 against TF32 (77: no device at all).
  add_test(NAME gpu_fp32_fine
           COMMAND ${kb_gpu_test} fine_gpu $<TARGET_FILE:kbench>
                   ${kb_fp32_strict})
  # No device: marked in the listing, a catalog SKIPPED, exit 0 (77: a
  # device is present).
  add_test(NAME gpu_no_device
           COMMAND ${kb_gpu_test} no_device $<TARGET_FILE:kbench>
                   ${kb_fp32_strict})
  set_tests_properties(gpu_fp32_fine gpu_no_device PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77)
endif()
