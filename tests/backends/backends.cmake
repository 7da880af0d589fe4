# tests/backends/backends.cmake - every built backend against the
# reference on the edge shapes of tests/inputs/*.txt, and the registry.
kb_add_test(test_registry kb_backends)
add_executable(test_backend ${CMAKE_CURRENT_LIST_DIR}/test_backend.c)
target_link_libraries(test_backend PRIVATE kb_backends kb_reference)

set(kb_backend_inputs
  ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gemm_edges.txt
  ${CMAKE_CURRENT_SOURCE_DIR}/inputs/conv_edges.txt
  ${CMAKE_CURRENT_SOURCE_DIR}/inputs/bnorm_edges.txt)
# Which settings each backend runs, beside it (backends/FOLDER/coverage.txt);
# test_backend derives the cases it expects from it and from the inputs'
# lines.

# One test per backend built (KB_BACKEND_NAMES, from the backend folders):
# backend_<name> on the CPU, gpu_backend_<name> (LABELS gpu, skipped
# without the device) on a GPU.  Two threads, whatever the caller's
# OMP_NUM_THREADS, so that the thread-dependent blocks the inputs aim at
# are the ones reached; passive waiting, since a correctness test gains
# nothing from threads spinning at barriers on a loaded machine (under
# load that made it ten times slower).
set(kb_backend_env "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive")
foreach(name IN LISTS KB_BACKEND_NAMES)
  if(KB_BACKEND_DEVICE_${name} STREQUAL "cpu")
    set(test backend_${name})
  else()
    set(test gpu_backend_${name})
  endif()
  # coverage_<arch>.txt where a library covers less on that
  # architecture (cmake/KbArch.cmake's KB_ARCH)
  set(coverage ${PROJECT_SOURCE_DIR}/backends/${KB_BACKEND_FOLDER_${name}}/coverage)
  if(EXISTS ${coverage}_${KB_ARCH}.txt)
    set(coverage ${coverage}_${KB_ARCH})
  endif()
  add_test(NAME ${test} COMMAND test_backend ${name} ${coverage}.txt
           ${kb_backend_inputs})
  set_tests_properties(${test} PROPERTIES ENVIRONMENT "${kb_backend_env}")
  if(NOT KB_BACKEND_DEVICE_${name} STREQUAL "cpu")
    set_tests_properties(${test} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
  endif()
endforeach()

# Each built backend's device is the one backends/backends.txt gives it
# (what CMake registers tests by, ReFrame builds by and Spack checks by).
add_test(NAME backends_table
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/backends_table_test.sh
                 ${KB_TEST_KBENCH}
                 ${PROJECT_SOURCE_DIR}/backends/backends.txt)

# A coverage line's `if KEY=GLOB` conditions, on the backends' own facts.
kb_test_program(kb_test_backend_program test_backend)
add_test(NAME backend_coverage_conditions
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/coverage_conditions_test.sh
                 ${KB_TEST_KBENCH} ${kb_test_backend_program}
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gemm_edges.txt)

include(${CMAKE_CURRENT_LIST_DIR}/omp/omp.cmake)

# No backend name spelled in tests/, integrations/ or drivers/ outside
# the files of tests/backends/backend_names_allow.txt (each says why).
add_test(NAME backend_names
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/backend_names_test.py
                 ${PROJECT_SOURCE_DIR})
