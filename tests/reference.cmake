# tests/reference.cmake
