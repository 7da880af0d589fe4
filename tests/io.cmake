# tests/io.cmake: the I/O stage (drivers/io/).  Tiny generated datasets of
# every format; the profiles come from tests/io_profiles_test.conf and the
# models they name from tests/io_catalog/.
set(KB_IO_TEST_DEFS
  KB_IO_TEST_PROFILES="${CMAKE_CURRENT_LIST_DIR}/io_profiles_test.conf"
  KB_IO_TEST_CATALOGS="${CMAKE_CURRENT_LIST_DIR}/io_catalog")
foreach(t test_io_units test_io_pipeline test_io_corrupt test_io_interrupt
          test_io_checkpoint test_io_compute)
  kb_add_test(${t} kb_io)
  target_compile_definitions(${t} PRIVATE ${KB_IO_TEST_DEFS})
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/drivers/io)
  set_tests_properties(${t} PROPERTIES TIMEOUT 120 LABELS io)
endforeach()
