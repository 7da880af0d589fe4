# A oneDNN CMake package that is installed but broken the way Debian 12's
# is without ocl-icd-opencl-dev: a REQUIRED dependency that is missing
# (tests/cmake/configure_broken_test.sh).
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})
find_package(KbMissingOpenCL REQUIRED)
