# tests/miopen.cmake - the miopen backend's host-side tensor shapes
# (backends/miopen/miopen_shape.c), which need no MIOpen: checked on
# every build, the backend itself only where MIOpen is found.
add_executable(test_miopen_shape test_miopen_shape.c
               ${PROJECT_SOURCE_DIR}/backends/miopen/miopen_shape.c)
target_link_libraries(test_miopen_shape PRIVATE kb_kernels)
add_test(NAME test_miopen_shape COMMAND test_miopen_shape)
