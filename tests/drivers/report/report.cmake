# tests/drivers/report/report.cmake - `kbench report`; the test parses the
# SVG and HTML with libxml2 (libxml2-dev).
pkg_check_modules(LIBXML2 QUIET IMPORTED_TARGET libxml-2.0)
if(LIBXML2_FOUND)
  kb_add_test(test_report kb_report PkgConfig::LIBXML2)
else()
  message(STATUS "tests: libxml2 not found, test_report not built")
endif()
