# tests/roofline.cmake: `kbench peaks` (ceilings, plateaus, the ceilings
# file) and the roofline placement and report.
kb_add_test(test_plateaus kb_peaks)
kb_add_test(test_ceilings_io kb_peaks)
kb_add_test(test_peaks_cmd kb_peaks)
kb_add_test(test_placement kb_roofline)
# The report test parses the SVG and HTML with libxml2 (libxml2-dev).
pkg_check_modules(LIBXML2 QUIET IMPORTED_TARGET libxml-2.0)
if(LIBXML2_FOUND)
  kb_add_test(test_report kb_roofline PkgConfig::LIBXML2)
else()
  message(STATUS "tests: libxml2 not found, test_report not built")
endif()
