# tests/backends/gpu/gpusim.cmake - the hand-written GPU kernels on gpusim
# (backends/gpu/gpusim): no GPU needed, LABELS gpusim (`ctest -L gpusim`),
# and gpusim_ordered or gpusim_threads by mode (the preset gpusim-tsan
# runs gpusim_threads under ThreadSanitizer).
if(NOT "gpusim" IN_LIST KB_BACKEND_NAMES)
  return()
endif()

# The backend tests, with the edge inputs, validation and coverage of
# gpu_backend_cuda (backends.cmake registers gpu_backend_gpusim: ordered,
# warp 32).  The coverage is exact (backends/gpu/coverage.txt): per kernel
# gpusim must PASS every case cuda is expected to run.  The threads mode
# (a pthread per GPU thread, two cores) takes a sample of the inputs: on
# all of them it took minutes.
set(kb_gpusim_coverage ${PROJECT_SOURCE_DIR}/backends/gpu/coverage.txt)
set(kb_gpusim_sample ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gpusim_threads.txt)
# On every input in ordered mode (label gpusim_full: the asan preset
# leaves these out, where Debug + AddressSanitizer made each 5 minutes,
# and runs the sample below instead).
set_tests_properties(gpu_backend_gpusim PROPERTIES
  LABELS "gpu;gpusim;gpusim_ordered;gpusim_full"
  ENVIRONMENT "${kb_backend_env};KBENCH_GPUSIM_MODE=ordered;KBENCH_GPUSIM_WARP=32")
add_test(NAME gpu_backend_gpusim_warp64
         COMMAND test_backend gpusim ${kb_gpusim_coverage} ${kb_backend_inputs})
set_tests_properties(gpu_backend_gpusim_warp64 PROPERTIES
  LABELS "gpu;gpusim;gpusim_ordered;gpusim_full"
  ENVIRONMENT "${kb_backend_env};KBENCH_GPUSIM_MODE=ordered;KBENCH_GPUSIM_WARP=64")
add_test(NAME gpu_backend_gpusim_sample
         COMMAND test_backend gpusim ${kb_gpusim_coverage} ${kb_gpusim_sample})
set_tests_properties(gpu_backend_gpusim_sample PROPERTIES
  LABELS "gpu;gpusim;gpusim_ordered"
  ENVIRONMENT "${kb_backend_env};KBENCH_GPUSIM_MODE=ordered;KBENCH_GPUSIM_WARP=32")
# one OpenMP thread for the reference: ThreadSanitizer does not know
# libgomp's synchronisation
foreach(warp 32 64)
  add_test(NAME gpu_backend_gpusim_threads_warp${warp}
           COMMAND test_backend gpusim ${kb_gpusim_coverage} ${kb_gpusim_sample})
  set_tests_properties(gpu_backend_gpusim_threads_warp${warp} PROPERTIES
    LABELS "gpu;gpusim;gpusim_threads"
    ENVIRONMENT "OMP_NUM_THREADS=1;KBENCH_GPUSIM_MODE=threads;KBENCH_GPUSIM_WARP=${warp}")
endforeach()

# The ceiling kernels (STREAM checked on the device, FMA in every
# precision) at small sizes; in threads mode STREAM only (its dot and
# check reduce through shared memory; the FMA kernels share nothing, and
# their 1024-thread blocks took two minutes under ThreadSanitizer).
kb_add_test(test_gpusim_ceilings kb_backends)
set_tests_properties(test_gpusim_ceilings PROPERTIES
  LABELS "gpu;gpusim;gpusim_ordered" ENVIRONMENT "KBENCH_GPUSIM_MODE=ordered")
add_test(NAME test_gpusim_ceilings_threads COMMAND test_gpusim_ceilings stream)
set_tests_properties(test_gpusim_ceilings_threads PROPERTIES
  LABELS "gpu;gpusim;gpusim_threads"
  ENVIRONMENT "OMP_NUM_THREADS=1;KBENCH_GPUSIM_MODE=threads")

# The race mode works: the GEMM built with a copy of the tile engine
# (gpu_tile.cuh) whose "step 0 in buffer 0" barrier is removed, made here
# from the real one so that it cannot drift.  Ordered mode must give wrong
# results, every time; under ThreadSanitizer (gpusim-tsan) the threads
# mode must be reported as a data race.
set(kb_tile ${PROJECT_SOURCE_DIR}/backends/gpu/gpu_tile.cuh)
set(kb_barrier "__syncthreads();               /* step 0 in buffer 0 */")
file(READ ${kb_tile} kb_tile_text)
string(FIND "${kb_tile_text}" "${kb_barrier}" kb_at)
if(kb_at EQUAL -1)
  message(FATAL_ERROR "gpusim.cmake: gpu_tile.cuh no longer has the line "
                      "'${kb_barrier}' that the race test removes")
endif()
string(REPLACE "${kb_barrier}" "/* barrier removed (gpusim race test) */"
       kb_tile_text "${kb_tile_text}")
set(kb_race_dir ${CMAKE_CURRENT_BINARY_DIR}/gpusim_race)
file(CONFIGURE OUTPUT ${kb_race_dir}/backends/gpu/gpu_tile.cuh
     CONTENT "${kb_tile_text}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${kb_tile})
set(kb_race_sources "")
foreach(stem gpu_gemm gpu_stream gpu_fma)
  file(CONFIGURE OUTPUT ${kb_race_dir}/${stem}.cc
       CONTENT "#include \"backends/gpu/${stem}.cu\"\n")
  list(APPEND kb_race_sources ${kb_race_dir}/${stem}.cc)
endforeach()
add_executable(test_gpusim_race ${CMAKE_CURRENT_LIST_DIR}/test_gpusim_race.c
  ${kb_race_sources}
  ${PROJECT_SOURCE_DIR}/backends/gpu/gpu_device.c
  ${PROJECT_SOURCE_DIR}/backends/info.c
  ${PROJECT_SOURCE_DIR}/backends/gpu/gpusim/gpusim_api.c
  ${PROJECT_SOURCE_DIR}/backends/gpu/gpusim/gpusim_launch.cc)
# the broken copy first, before the source tree's
target_include_directories(test_gpusim_race BEFORE PRIVATE ${kb_race_dir})
target_include_directories(test_gpusim_race PRIVATE ${PROJECT_SOURCE_DIR}
                           ${PROJECT_BINARY_DIR})
target_compile_definitions(test_gpusim_race PRIVATE KB_GPU_SIM)
target_compile_options(test_gpusim_race PRIVATE
  $<$<COMPILE_LANGUAGE:CXX>:-Wno-unknown-pragmas>)
target_link_libraries(test_gpusim_race PRIVATE kb_kernels Threads::Threads)
add_test(NAME gpusim_race_ordered COMMAND test_gpusim_race)
set_tests_properties(gpusim_race_ordered PROPERTIES
  LABELS "gpu;gpusim;gpusim_ordered" ENVIRONMENT "KBENCH_GPUSIM_MODE=ordered")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=thread")
  add_test(NAME gpusim_race_threads COMMAND test_gpusim_race)
  set_tests_properties(gpusim_race_threads PROPERTIES
    LABELS "gpu;gpusim;gpusim_threads" ENVIRONMENT "KBENCH_GPUSIM_MODE=threads"
    PASS_REGULAR_EXPRESSION "WARNING: ThreadSanitizer: data race")
endif()

# Correctness only, end to end: not in the default set, its records say
# so, and merge and compare leave them out.
foreach(case default_set left_out)
  add_test(NAME gpusim_cli_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gpusim_cli.sh ${case}
                   ${KB_TEST_KBENCH})
  set_tests_properties(gpusim_cli_${case} PROPERTIES
    LABELS "gpusim;gpusim_ordered"
    ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive")
endforeach()
