# tests/drivers/peaks/peaks.cmake - `kbench peaks`: the verb on the CPU
# (microarch.conf), and its GPU half: the runs on every visible GPU, which
# on a machine without one must each say so and skip, with kbench peaks
# still exiting 0.
kb_add_test(test_peaks_cmd kb_verb_peaks)
add_dependencies(test_peaks_cmd kb_data_peaks)   # microarch.conf
kb_add_test(test_gpu_peaks kb_verb_peaks)
add_dependencies(test_gpu_peaks kb_data_peaks)
# The program end to end, with the runtimes this build has.
set(kb_gpu_peaks_runtimes "")
if(KB_CUDA_ENABLED)
  list(APPEND kb_gpu_peaks_runtimes CUDA)
endif()
if(KB_HIP_ENABLED)
  list(APPEND kb_gpu_peaks_runtimes HIP)
endif()
add_test(NAME cli_peaks_gpu
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gpu_peaks_test.sh
                 ${KB_TEST_KBENCH} ${kb_gpu_peaks_runtimes})
