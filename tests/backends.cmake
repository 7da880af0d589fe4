# tests/backends.cmake - every built backend against the reference on the
# edge shapes of tests/inputs/*.txt, and the registry.
kb_add_test(test_registry kb_backends)
add_executable(test_backend test_backend.c)
target_link_libraries(test_backend PRIVATE kb_backends kb_reference)

set(kb_backend_inputs
  ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gemm_edges.txt
  ${CMAKE_CURRENT_SOURCE_DIR}/inputs/conv_edges.txt
  ${CMAKE_CURRENT_SOURCE_DIR}/inputs/bnorm_edges.txt)

# backend_<b> runs the inputs on backend b and requires exactly `expect`
# cases per kernel to run (not be SKIPPED), so a path that silently skips
# fails.  Each line is one case per setting test_backend sweeps (its
# tables): gemm in 5 types (f32, f64, bf16, f16, bf16:bf16:f32); conv in
# 2 layouts x 5 directions (FWD_B, FWD_D, BWD_D, BWD_W, BWD_WB) x those 5
# types; bnorm in 2 layouts x 4 directions (FWD_I, FWD_D, BWD_D, BWD_DW)
# x 4 types (no mixed one).  The inputs hold 55 conv2d, 10 conv3d, 46
# gemm and 18 bnorm lines, so each (direction, type) a backend runs in
# both layouts adds conv2d=110, conv3d=20, bnorm=36, and each GEMM type
# gemm=46 (test_backend prints the split); adding a line changes these.  Two threads, whatever the
# caller's OMP_NUM_THREADS, so that the thread-dependent blocks the inputs
# aim at are the ones reached; passive waiting, since a correctness test
# gains nothing from threads spinning at barriers on a loaded machine
# (under load that made it ten times slower).
function(kb_backend_test b expect)
  if((b STREQUAL "omp") OR (KB_BACKENDS_BUILT MATCHES "${b}"))
    add_test(NAME backend_${b}
             COMMAND test_backend ${b} ${expect} ${kb_backend_inputs})
    set_tests_properties(backend_${b} PROPERTIES
      ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive")
  endif()
endfunction()

# omp: f32 in every direction; bf16, f16 and bf16:bf16:f32 for GEMM and
# the forward conv (FWD_B, FWD_D); bf16 and f16 (not mixed) for the
# backward conv (BWD_D, BWD_W, BWD_WB) and for bnorm (every direction).
# openblas: GEMM in f32 and f64; conv in f32 NCX only (im2col + sgemm),
# all 5 directions; no bnorm.  onednn: f32 and bf16 in every direction,
# and bf16:bf16:f32 for the forward conv and GEMM (f64, f16 and the mixed
# backward convs SKIPPED: oneDNN 2.6.3 has none on this CPU).
set(kb_omp_expect conv2d=1870,conv3d=340,gemm=184,bnorm=432)
kb_backend_test(omp            ${kb_omp_expect})
# omp again under the KBENCH_OMP_UKERNEL choices of its micro-kernel table
# (backends/omp/omp_ukernels.c) that a CPU with AMX (which backend_omp
# tests) does not pick itself; one this CPU cannot run makes every case
# fail to prepare with "this CPU ... cannot run it", which SKIPS the test.
foreach(uk portable avx512_bf16)
  add_test(NAME backend_omp_${uk}
           COMMAND test_backend omp ${kb_omp_expect} ${kb_backend_inputs})
  set_tests_properties(backend_omp_${uk} PROPERTIES
    ENVIRONMENT
      "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;KBENCH_OMP_UKERNEL=${uk}"
    SKIP_REGULAR_EXPRESSION "KBENCH_OMP_UKERNEL=${uk}: this CPU")
endforeach()
kb_backend_test(openblas       conv2d=275,conv3d=50,gemm=92,bnorm=0)
kb_backend_test(onednn         conv2d=1320,conv3d=240,gemm=138,bnorm=288)
kb_backend_test(onednn_reorder conv2d=1320,conv3d=240,gemm=138,bnorm=288)
