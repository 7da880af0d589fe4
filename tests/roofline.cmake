# tests/roofline.cmake: `kbench peaks` (ceilings, plateaus, the ceilings
# file) and the roofline placement and report.
kb_add_test(test_plateaus kb_machine)
kb_add_test(test_ceilings_io kb_ceilings)
kb_add_test(test_peaks_cmd kb_verb_peaks)
add_dependencies(test_peaks_cmd kb_data_peaks)   # microarch.conf
kb_add_test(test_placement kb_roofline)
# The report test parses the SVG and HTML with libxml2 (libxml2-dev).
pkg_check_modules(LIBXML2 QUIET IMPORTED_TARGET libxml-2.0)
if(LIBXML2_FOUND)
  kb_add_test(test_report kb_report PkgConfig::LIBXML2)
else()
  message(STATUS "tests: libxml2 not found, test_report not built")
endif()
# The CPU's identity and the microarchitecture table (needs the staged
# share/kbench/peaks/microarch.conf), and no FMA peak above 1.05 x its
# theoretical value; SKIPPED where the CPU or the clock is unknown.
kb_add_test(test_cpu_id kb_driver)
add_dependencies(test_cpu_id kb_data_peaks)
kb_add_test(test_fma_ceiling kb_machine)
add_dependencies(test_fma_ceiling kb_data_peaks)
set_tests_properties(test_fma_ceiling PROPERTIES SKIP_RETURN_CODE 77)
