# aarch64-linux-gnu.cmake - cross-compile kbench for arm64 Linux with
# Debian's crossbuild-essential-arm64 against an arm64 sysroot
# (scripts/arm-check.sh makes one with mmdebstrap).
#   cmake -S . -B build/arm64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DKB_SYSROOT=/path/to/arm64-sysroot
# KB_SYSROOT may also come from the environment.  The tests then run
# under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR); pick the emulated
# CPU at test time with QEMU_CPU (qemu's own variable), e.g.
# QEMU_CPU=neoverse-n1 ctest ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)

if(NOT KB_SYSROOT AND DEFINED ENV{KB_SYSROOT})
  set(KB_SYSROOT "$ENV{KB_SYSROOT}")
endif()
if(NOT KB_SYSROOT)
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: set KB_SYSROOT to an arm64 sysroot "
                      "(scripts/arm-check.sh makes one)")
endif()
set(KB_SYSROOT "${KB_SYSROOT}" CACHE PATH "arm64 sysroot")
# try_compile() projects read the toolchain file again
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KB_SYSROOT)
set(CMAKE_SYSROOT "${KB_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the sysroot's .pc files only.  A sysroot made without
# maintainer scripts (mmdebstrap --variant=extract) has no alternatives
# set, so OpenBLAS's openblas.pc is found in openblas-pthread/ directly.
set(kb_multiarch "${KB_SYSROOT}/usr/lib/aarch64-linux-gnu")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${KB_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${kb_multiarch}/pkgconfig:${kb_multiarch}/openblas-pthread/pkgconfig:${KB_SYSROOT}/usr/share/pkgconfig")

find_program(KB_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(KB_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${KB_QEMU_AARCH64};-L;${KB_SYSROOT}")
endif()

# FindHDF5 would ask the build machine's h5cc, which names the build
# machine's libraries: search the sysroot instead (Debian's serial HDF5).
set(HDF5_C_COMPILER_EXECUTABLE "" CACHE FILEPATH "no host h5cc in a cross build")
set(HDF5_ROOT "${kb_multiarch}/hdf5/serial;${KB_SYSROOT}/usr/include/hdf5/serial")
