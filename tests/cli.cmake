# tests/cli.cmake
