# tests/gpu_index.cmake - the GPU kernels' index math
# (backends/gpu/gpu_conv_index.h), checked on the CPU against the
# reference: needs neither a GPU nor a GPU build.
add_executable(test_gpu_conv_index test_gpu_conv_index.c)
target_link_libraries(test_gpu_conv_index PRIVATE kb_reference)
add_test(NAME gpu_conv_index
         COMMAND test_gpu_conv_index
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/conv_edges.txt
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gemm_edges.txt
                 ${CMAKE_CURRENT_SOURCE_DIR}/inputs/gpu_index.txt)
set_tests_properties(gpu_conv_index PROPERTIES LABELS gpu
                     ENVIRONMENT "OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive")
