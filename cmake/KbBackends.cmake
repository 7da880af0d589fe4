# KbBackends.cmake - how a backend folder says what it built.
#
# Each folder under backends/ finds its own library and calls one of
# these; backends/CMakeLists.txt only lists the folders, and the top level
# prints the two lists at the end of configure.
#
#   kb_backend_built(NAME "what")    e.g. kb_backend_built(cublas "cuBLAS 13.0")
#   kb_backend_skipped(NAME "why")   e.g. kb_backend_skipped(cudnn "no cudnn.h")
function(kb_backend_built name what)
  if(what)
    set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_BUILT "${name} (${what})")
  else()
    set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_BUILT "${name}")
  endif()
endfunction()

function(kb_backend_skipped name why)
  set_property(GLOBAL APPEND PROPERTY KB_BACKENDS_SKIPPED "${name} (${why})")
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
