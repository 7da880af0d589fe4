# KbBackends.cmake - how a backend folder says what it built.
#
# Each folder under backends/ finds its own library and calls one of
# these; backends/CMakeLists.txt only lists the folders, and the top level
# prints the two lists at the end of configure.
#
#   kb_backend_built(NAME "what")    e.g. kb_backend_built(cublas "cuBLAS 13.0")
#   kb_backend_skipped(NAME "why")   e.g. kb_backend_skipped(cudnn "no cudnn.h")
#
# NAME is one line of backends/backends.txt (its switch and device, read
# here into KB_BACKEND_SWITCH_<NAME> and KB_BACKEND_DEVICE_<NAME>); a
# folder that builds two backends calls once per name.  The names built go
# to the global property KB_BACKEND_NAMES, which tests/ registers its
# per-backend tests from; kb_backends_reported() fails configure when the
# folders and backends.txt disagree.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../backends/backends.txt kb_table_lines
     REGEX "^[a-z]")
set(KB_BACKEND_ALL "")
foreach(line IN LISTS kb_table_lines)
  string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
  list(GET fields 0 n)
  list(GET fields 1 KB_BACKEND_SWITCH_${n})
  list(GET fields 2 KB_BACKEND_DEVICE_${n})
  list(APPEND KB_BACKEND_ALL ${n})
endforeach()

function(kb_backend_known name)
  if(NOT name IN_LIST KB_BACKEND_ALL)
    message(FATAL_ERROR "backend ${name} is not in backends/backends.txt "
                        "(add its line: name, CMake switch, device)")
  endif()
  set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_REPORTED ${name})
endfunction()

function(kb_backend_built name what)
  kb_backend_known(${name})
  set_property(GLOBAL APPEND PROPERTY KB_BACKEND_NAMES ${name})
  if(what)
    set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_BUILT "${name} (${what})")
  else()
    set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_BUILT "${name}")
  endif()
endfunction()

function(kb_backend_skipped name why)
  kb_backend_known(${name})
  set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_SKIPPED "${name} (${why})")
endfunction()

# After every folder: each name of backends.txt was built or skipped.
function(kb_backends_reported)
  get_property(seen GLOBAL PROPERTY KB_BACKENDS_REPORTED)
  foreach(n IN LISTS KB_BACKEND_ALL)
    if(NOT n IN_LIST seen)
      message(FATAL_ERROR "backends/backends.txt names ${n}, but no folder "
                          "under backends/ built or skipped it")
    endif()
  endforeach()
endfunction()

# kb_header_version(OUT header PREFIX PART...): "9.19.0" from the lines
# "#define <PREFIX><PART> <n>" of a library's header, for the built line.
function(kb_header_version out header prefix)
  set(parts "")
  foreach(part IN LISTS ARGN)
    file(STRINGS "${header}" line REGEX "^#define ${prefix}${part} ")
    string(REGEX REPLACE "^#define ${prefix}${part} +([0-9]+).*" "\\1" n "${line}")
    list(APPEND parts "${n}")
  endforeach()
  list(JOIN parts "." v)
  set(${out} "${v}" PARENT_SCOPE)
endfunction()
