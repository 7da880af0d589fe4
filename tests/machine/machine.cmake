# tests/machine/machine.cmake - what kbench knows of the machine
# (machine/): bandwidth plateaus; the CPU's identity and the
# microarchitecture table (needs the staged share/kbench/peaks/
# microarch.conf), and no FMA peak above 1.05 x its theoretical value
# (SKIPPED where the CPU or the clock is unknown); every FMA kernel
# computes what it claims and, on x86, its loop is register-only; the GPU
# architecture
# table (gpu_arch.conf, staged into share/kbench/peaks/).
kb_add_test(test_plateaus kb_machine)
kb_add_test(test_cpu_id kb_driver)
add_dependencies(test_cpu_id kb_data_peaks)
kb_add_test(test_fma_ceiling kb_machine)
add_dependencies(test_fma_ceiling kb_data_peaks)
set_tests_properties(test_fma_ceiling PROPERTIES SKIP_RETURN_CODE 77)
kb_add_test(test_fma_kernels kb_machine)
# The x86 kernels' object code: register-only hot loops, every chain kept.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  add_test(NAME fma_kernels_code
           COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/fma_kernels_code.py
                   $<TARGET_FILE:kb_machine>)
endif()
kb_add_test(test_gpu_arch kb_machine)
add_dependencies(test_gpu_arch kb_data_peaks)
