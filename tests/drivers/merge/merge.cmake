# tests/drivers/merge/merge.cmake - `kbench merge`: every bad input refused, outliers on
# synthetic nodes, and a merge of real `kbench run` files; the figures
# are parsed with libxml2 (libxml2-dev).
kb_add_test(test_merge_inputs kb_merge)
pkg_check_modules(LIBXML2 QUIET IMPORTED_TARGET libxml-2.0)
if(LIBXML2_FOUND)
  kb_add_test(test_merge kb_merge PkgConfig::LIBXML2)
  kb_add_test(test_merge_run kb_cli PkgConfig::LIBXML2)
else()
  message(STATUS "tests: libxml2 not found, test_merge and test_merge_run not built")
endif()
