# tests/kernels.cmake
