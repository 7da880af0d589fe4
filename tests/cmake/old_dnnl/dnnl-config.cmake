# A oneDNN CMake package that configures fine but is older than the C API
# the backend is written for (tests/cmake/configure_broken_test.sh): it
# must be skipped, not built.
if(NOT TARGET DNNL::dnnl)
  add_library(DNNL::dnnl INTERFACE IMPORTED)
endif()
