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
# fails.  Each line is one case per setting test_backend sweeps: gemm in 2
# dtypes; conv and bnorm in 2 layouts x 2 directions x 2 dtypes.  The
# inputs hold 55 conv2d, 10 conv3d, 46 gemm and 18 bnorm lines, so a
# backend that runs every f32 case runs conv2d=220, conv3d=40, gemm=46,
# bnorm=72; adding a line changes these.  Two threads, whatever the
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

# omp, onednn: every f32 case.  openblas: GEMM in f32 and f64, conv in
# f32 NCX only (im2col + sgemm), no bnorm.
kb_backend_test(omp            conv2d=220,conv3d=40,gemm=46,bnorm=72)
kb_backend_test(openblas       conv2d=110,conv3d=20,gemm=92,bnorm=0)
kb_backend_test(onednn         conv2d=220,conv3d=40,gemm=46,bnorm=72)
kb_backend_test(onednn_reorder conv2d=220,conv3d=40,gemm=46,bnorm=72)
