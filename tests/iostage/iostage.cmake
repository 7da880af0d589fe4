# tests/iostage/iostage.cmake: the I/O stage (iostage/).  Tiny generated
# datasets of every format; the profiles come from
# tests/inputs/io_profiles_test.conf and the models they name from
# tests/inputs/io_catalog/.
set(KB_IO_TEST_DEFS
  KB_IO_TEST_PROFILES="${CMAKE_CURRENT_SOURCE_DIR}/inputs/io_profiles_test.conf"
  KB_IO_TEST_CATALOGS="${CMAKE_CURRENT_SOURCE_DIR}/inputs/io_catalog")
foreach(t test_io_units test_io_pipeline test_io_corrupt test_io_interrupt
          test_io_checkpoint test_io_ckpt_schedule test_io_compute
          test_io_merge test_io_metrics test_io_shard test_io_npz test_io_stream)
  kb_add_test(${t} kb_verb_io)
  target_compile_definitions(${t} PRIVATE ${KB_IO_TEST_DEFS})
  set_tests_properties(${t} PROPERTIES TIMEOUT 120 LABELS io)
endforeach()

# O_DIRECT refused, injected by an LD_PRELOAD shim (no fault hook in the
# production code).  GCC's shared ASan runtime insists on coming first in
# the library list, so in such a build it is preloaded ahead of the shim
# (clang links its runtime into the executable: nothing to do).
add_library(kb_direct_refuse_shim MODULE ${CMAKE_CURRENT_LIST_DIR}/direct_refuse_shim.c)
target_link_libraries(kb_direct_refuse_shim PRIVATE ${CMAKE_DL_LIBS})
# the same check as iostage/CMakeLists.txt's, whose result is local to
# that folder
find_package(PkgConfig REQUIRED)
pkg_check_modules(KB_SHIM_URING QUIET liburing)
if(KB_SHIM_URING_FOUND)
  target_compile_definitions(kb_direct_refuse_shim PRIVATE KB_SHIM_URING)
  target_include_directories(kb_direct_refuse_shim PRIVATE
                             ${KB_SHIM_URING_INCLUDE_DIRS})
endif()
kb_add_test(test_io_direct kb_verb_io ${CMAKE_DL_LIBS})
target_compile_definitions(test_io_direct PRIVATE ${KB_IO_TEST_DEFS})
set(KB_IO_PRELOAD "$<TARGET_FILE:kb_direct_refuse_shim>")
if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND
   CMAKE_C_FLAGS MATCHES "-fsanitize=[^ ]*address")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE KB_IO_LIBASAN
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(KB_IO_PRELOAD "${KB_IO_LIBASAN}:${KB_IO_PRELOAD}")
endif()
set_tests_properties(test_io_direct PROPERTIES
  ENVIRONMENT "LD_PRELOAD=${KB_IO_PRELOAD}"
  SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS io)

# DLIO's datasets as DLIO's own libraries write them: numpy.savez and
# savez_compressed, h5py, the TFRecord Example encoding (Debian's
# python3-numpy python3-h5py, so /usr/bin's python3 before a PATH one);
# written by one test, read by the next, nothing binary committed.
find_program(KB_IO_PYTHON3 NAMES python3 HINTS /usr/bin)
set(KB_IO_DLIO_DATA ${CMAKE_CURRENT_BINARY_DIR}/dlio_fixtures)
add_test(NAME io_dlio_fixtures
         COMMAND ${KB_IO_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/dlio_fixtures.py
                 write ${KB_IO_DLIO_DATA})
set_tests_properties(io_dlio_fixtures PROPERTIES
  FIXTURES_SETUP dlio_data TIMEOUT 60 LABELS io)
add_executable(test_io_dlio_formats ${CMAKE_CURRENT_LIST_DIR}/test_io_dlio_formats.c)
target_link_libraries(test_io_dlio_formats PRIVATE kb_verb_io)
target_compile_definitions(test_io_dlio_formats PRIVATE ${KB_IO_TEST_DEFS}
  KB_IO_PYTHON3="${KB_IO_PYTHON3}"
  KB_IO_DLIO_SCRIPT="${CMAKE_CURRENT_LIST_DIR}/dlio_fixtures.py")
add_test(NAME test_io_dlio_formats
         COMMAND test_io_dlio_formats ${KB_IO_DLIO_DATA})
set_tests_properties(test_io_dlio_formats PROPERTIES
  FIXTURES_REQUIRED dlio_data TIMEOUT 120 LABELS io)
# end to end: kbench io run --dlio-layout over each of them
add_test(NAME test_io_dlio_run
         COMMAND test_io_dlio_formats ${KB_IO_DLIO_DATA} --run)
set_tests_properties(test_io_dlio_run PROPERTIES
  FIXTURES_REQUIRED dlio_data TIMEOUT 120 LABELS io)

# DLIO's own workload YAMLs (tests/inputs/dlio/, unchanged) into profiles
# through the key table staged in share/kbench/io/; and docs/io-stage.md's
# table of that key table, row for row.
kb_add_test(test_io_dlio_config kb_verb_io)
target_compile_definitions(test_io_dlio_config PRIVATE ${KB_IO_TEST_DEFS}
  KB_IO_DLIO_INPUTS="${CMAKE_CURRENT_SOURCE_DIR}/inputs/dlio")
set_tests_properties(test_io_dlio_config PROPERTIES TIMEOUT 120 LABELS io)
add_test(NAME io_dlio_keys_readme
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/dlio_keys_readme_test.sh
                 ${PROJECT_SOURCE_DIR}/iostage/dlio/dlio_keys.conf
                 ${PROJECT_SOURCE_DIR}/docs/io-stage.md)
set_tests_properties(io_dlio_keys_readme PROPERTIES TIMEOUT 30 LABELS io)

# The checksums on known vectors: the build's implementation (ISA-L when
# found), and the fallback compiled alone from the same source.
add_executable(test_io_checksum ${CMAKE_CURRENT_LIST_DIR}/test_io_checksum.c)
target_link_libraries(test_io_checksum PRIVATE kb_io)
if(KB_IO_ISAL_INCLUDE AND KB_IO_ISAL_LIB)
  add_test(NAME test_io_checksum COMMAND test_io_checksum isa-l)
else()
  add_test(NAME test_io_checksum COMMAND test_io_checksum zlib+table)
endif()
set_tests_properties(test_io_checksum PROPERTIES TIMEOUT 60 LABELS io)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)
add_executable(test_io_checksum_fallback ${CMAKE_CURRENT_LIST_DIR}/test_io_checksum.c
               ${PROJECT_SOURCE_DIR}/iostage/checksum.c)
target_include_directories(test_io_checksum_fallback PRIVATE
                           ${PROJECT_SOURCE_DIR})
target_link_libraries(test_io_checksum_fallback PRIVATE ZLIB::ZLIB
                                                        Threads::Threads)
add_test(NAME test_io_checksum_fallback
         COMMAND test_io_checksum_fallback zlib+table)
set_tests_properties(test_io_checksum_fallback PROPERTIES TIMEOUT 60
                                                          LABELS io)

# The stage's modules include one another without a circle.
add_test(NAME iostage_layering
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/iostage_layering_test.py ${PROJECT_SOURCE_DIR})
set_tests_properties(iostage_layering PROPERTIES TIMEOUT 30 LABELS io)
