# tests/omp.cmake
