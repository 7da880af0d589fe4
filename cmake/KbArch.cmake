# KbArch.cmake - the one place that decides the target architecture and
# what that means for the build: KB_ARCH (x86_64, aarch64, or portable for
# any other), the native-ISA flag, and kb_arch_sources(), which each
# CMakeLists with architecture-specific files asks for its list.  No file
# compiled for one architecture includes another's headers (immintrin.h,
# cpuid.h, arm_neon.h, arm_sve.h): CMake does not compile it there.
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" kb_processor)
if(kb_processor MATCHES "^(x86_64|amd64)$")
  set(KB_ARCH x86_64)
elseif(kb_processor MATCHES "^(aarch64|arm64)$")
  set(KB_ARCH aarch64)
else()
  set(KB_ARCH portable)
endif()
message(STATUS "kbench target architecture: ${KB_ARCH} (${CMAKE_SYSTEM_PROCESSOR})")

# The build machine's ISA.  A cross compiler has no "native" (it rejects
# -march=native), so a cross build takes the architecture's baseline and
# picks wider ISAs at run time.  gcc on aarch64 spells it -mcpu=native.
# KB_NATIVE_FLAG is the flag the compiler gets (empty for none): the
# build_flags test expects exactly it.
set(KB_NATIVE_FLAG "")
if(KB_NATIVE AND CMAKE_CROSSCOMPILING)
  message(STATUS "kbench: cross-compiling, KB_NATIVE ignored (no native ISA to ask)")
elseif(KB_NATIVE AND KB_ARCH STREQUAL "aarch64")
  set(KB_NATIVE_FLAG -mcpu=native)
elseif(KB_NATIVE)
  set(KB_NATIVE_FLAG -march=native)
endif()
if(KB_NATIVE_FLAG)
  add_compile_options($<$<COMPILE_LANGUAGE:C>:${KB_NATIVE_FLAG}>)
endif()

# kb_arch_sources(<out-var> [x86_64 files...] [aarch64 files...]
#                 [portable files...]): the files of this target's
# architecture, relative to the calling CMakeLists.
function(kb_arch_sources out)
  cmake_parse_arguments(PARSE_ARGV 1 kb "" "" "x86_64;aarch64;portable")
  set(${out} ${kb_${KB_ARCH}} PARENT_SCOPE)
endfunction()
