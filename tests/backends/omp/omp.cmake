# tests/backends/omp/omp.cmake - the omp backend again under the
# KBENCH_OMP_UKERNEL choices of its micro-kernel table
# (backends/omp/omp_ukernels.c) that a CPU with AMX (which backend_omp
# tests) does not pick itself; one this CPU cannot run makes every case
# fail to prepare with "this CPU ... cannot run it", which SKIPS the test.
# Names omp on purpose: the table is omp's (tests/backends/backend_names_allow.txt).
# Per architecture (cmake/KbArch.cmake) the entries its table has: on
# aarch64, neon is the f32 kernel that an SVE CPU does not pick.
kb_arch_sources(omp_forced_ukernels x86_64 avx512_bf16 aarch64 neon)
foreach(uk portable ${omp_forced_ukernels})
  add_test(NAME backend_omp_${uk}
           COMMAND test_backend omp ${PROJECT_SOURCE_DIR}/backends/omp/coverage.txt ${kb_backend_inputs})
  set_tests_properties(backend_omp_${uk} PROPERTIES
    ENVIRONMENT "${kb_backend_env};KBENCH_OMP_UKERNEL=${uk}"
    SKIP_REGULAR_EXPRESSION "KBENCH_OMP_UKERNEL=${uk}: this CPU")
endforeach()

# The direct convolution's tile loop with a small cache budget: its
# slices and column blocks, which the edge shapes are too small to reach.
kb_add_test(test_omp_direct kb_backends)

# The direct store's vector rounding to bf16 against kbench's own.
kb_add_test(test_omp_bf16_round kb_backends)
