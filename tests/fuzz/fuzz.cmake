# tests/fuzz/fuzz.cmake: libFuzzer targets of every parser of untrusted
# input (-DKB_FUZZ=ON, clang only; scripts/fuzz.sh builds and runs them).
# Included from the top-level CMakeLists.txt before the libraries, so that
# every library the targets link is instrumented for coverage and the
# sanitizers; the targets themselves link libFuzzer's main.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "KB_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_C_COMPILER=clang")
endif()
# -O1 -g whatever the build type: fast enough to fuzz, frames readable.
# A UBSan report aborts, so it counts as a crash.
add_compile_options(-O1 -g -fno-omit-frame-pointer
                    -fsanitize=fuzzer-no-link,address,undefined
                    -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)

set(KB_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(KB_FUZZ_TARGETS "")

# kb_fuzz(NAME SOURCE LIBRARY [DEFINITIONS...]): one target.
function(kb_fuzz name source lib)
  add_executable(fuzz_${name} ${KB_FUZZ_DIR}/${source})
  target_compile_definitions(fuzz_${name} PRIVATE ${ARGN})
  target_link_libraries(fuzz_${name} PRIVATE ${lib})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  set_target_properties(fuzz_${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  set(KB_FUZZ_TARGETS ${KB_FUZZ_TARGETS} fuzz_${name} PARENT_SCOPE)
endfunction()

# One source per kind of entry point, compiled once per parser.
foreach(fmt tfrecord npz hdf5 dlio-npz dlio-tfrecord dlio-hdf5)
  string(REPLACE "-" "_" id ${fmt})
  kb_fuzz(format_${id} fuzz_format.c kb_io KB_FUZZ_FORMAT="${fmt}")
endforeach()
# decoder and the tiny profile (tests/inputs/io_profiles_test.conf) giving its shape
foreach(pair cosmo:cosmoflow jpeg:resnet50 hdf5:deepcam)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 dec)
  list(GET pair 1 prof)
  kb_fuzz(decode_${dec} fuzz_decode.c kb_io KB_FUZZ_DECODER="${dec}"
          KB_FUZZ_PROFILE="${prof}"
          KB_FUZZ_PROFILES="${PROJECT_SOURCE_DIR}/tests/inputs/io_profiles_test.conf")
endforeach()
kb_fuzz(descriptor fuzz_descriptor.c kb_kernels)
kb_fuzz(batch fuzz_batch.c kb_kernels)
kb_fuzz(dlio_config fuzz_dlio_config.c kb_io)
kb_fuzz(manifest fuzz_manifest.c kb_io)
kb_fuzz(bitmap fuzz_bitmap.c kb_io)
kb_fuzz(merge fuzz_merge.c kb_io)

# `cmake --build DIR --target fuzz` builds every target and the kbench
# that writes their seeds.
add_custom_target(fuzz DEPENDS ${KB_FUZZ_TARGETS} kbench)
