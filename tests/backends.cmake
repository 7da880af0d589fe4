# tests/omp.cmake - every built backend against the reference, and the
# registry.
kb_add_test(test_registry kb_backends)
add_executable(test_backend test_backend.c)
target_link_libraries(test_backend PRIVATE kb_backends kb_reference)
foreach(b omp openblas onednn onednn_reorder)
  if((b STREQUAL "omp") OR (KB_BACKENDS_BUILT MATCHES "${b}"))
    add_test(NAME backend_${b} COMMAND test_backend ${b})
  endif()
endforeach()
