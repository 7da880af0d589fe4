# KbData.cmake - kb_data(<subdir> <files...>): kbench's data files.
#
# Each file is copied at build time into ${CMAKE_BINARY_DIR}/share/kbench/
# <subdir>/, where kb_data_dir() (kernels/data_dir.c) finds it from the
# build tree (kbench at the top of the build tree, tests in build/tests/),
# and installed to ${CMAKE_INSTALL_DATADIR}/kbench/<subdir>/, where an
# installed bin/kbench finds it.  Relative file names are relative to the
# project's source root (kb_data(peaks machine/microarch.conf)), so a
# call reads the same from any CMakeLists.txt.  One call per subdir.  The
# target kb_data stages them all.
include(GNUInstallDirs)

set(KB_DATA_STAGE_DIR ${CMAKE_BINARY_DIR}/share/kbench)
# Every staged file: kb_kernels depends on it, so building any one
# executable (cmake --build --target test_x) stages the data it reads.
add_custom_target(kb_data)

function(kb_data subdir)
  if(NOT ARGN)
    message(FATAL_ERROR "kb_data(${subdir}): no files given")
  endif()
  set(target kb_data_${subdir})
  if(TARGET ${target})
    message(FATAL_ERROR "kb_data(${subdir}) called twice: list all of its "
                        "files in one call")
  endif()
  set(staged "")
  set(sources "")
  foreach(f IN LISTS ARGN)
    cmake_path(ABSOLUTE_PATH f BASE_DIRECTORY ${PROJECT_SOURCE_DIR}
               OUTPUT_VARIABLE src)
    if(NOT EXISTS ${src})
      message(FATAL_ERROR "kb_data(${subdir}): no file ${src}")
    endif()
    cmake_path(GET src FILENAME name)
    set(out ${KB_DATA_STAGE_DIR}/${subdir}/${name})
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${src} ${out}
      DEPENDS ${src}
      COMMENT "Staging share/kbench/${subdir}/${name}")
    list(APPEND staged ${out})
    list(APPEND sources ${src})
  endforeach()
  add_custom_target(${target} ALL DEPENDS ${staged})
  add_dependencies(kb_data ${target})
  install(FILES ${sources}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/kbench/${subdir})
endfunction()
