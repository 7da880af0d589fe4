# KbGpu.cmake - the GPU toolchains: CUDA (nvcc) and HIP (hipcc).
#
#   -DKBENCH_CUDA=AUTO|ON|OFF   AUTO builds the CUDA backends when nvcc is
#                               found; ON fails configure without it.
#   CMAKE_CUDA_ARCHITECTURES    default 80;90 (A100, H100/H200)
#   -DKBENCH_HIP=AUTO|ON|OFF    the same for HIP with hipcc
#   KBENCH_HIP_ARCHITECTURES    default gfx90a (MI200)
#
# Included from the top level, because enable_language() must run there.
# Sets KB_CUDA_ENABLED / KB_HIP_ENABLED and KB_CUDA_WHY / KB_HIP_WHY (why
# not) for backends/gpu and the vendor folders.  HIP sources are compiled
# by hipcc through kb_hip_objects(): CMake 3.25's HIP language expects a
# ROCm tree (/opt/rocm/lib/cmake/hip-lang) that Debian's packages do not
# lay out.
set(KBENCH_CUDA AUTO CACHE STRING "Build the CUDA backends: AUTO, ON or OFF")
set_property(CACHE KBENCH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(KBENCH_HIP AUTO CACHE STRING "Build the HIP backends: AUTO, ON or OFF")
set_property(CACHE KBENCH_HIP PROPERTY STRINGS AUTO ON OFF)
set(KBENCH_HIP_ARCHITECTURES gfx90a CACHE STRING
    "AMD GPU targets for hipcc --offload-arch (;-separated)")

# Fail under ON, else record why and go on.
macro(kb_gpu_unavailable lang why)
  if(KBENCH_${lang} STREQUAL "ON")
    message(FATAL_ERROR "KBENCH_${lang}=ON but ${why}")
  endif()
  set(KB_${lang}_ENABLED OFF)
  set(KB_${lang}_WHY "${why}")
endmacro()

# ---- CUDA ----
set(KB_CUDA_ENABLED OFF)
if(KBENCH_CUDA STREQUAL "OFF")
  set(KB_CUDA_WHY "KBENCH_CUDA=OFF")
else()
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)  # not on every PATH
  endif()
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    kb_gpu_unavailable(CUDA "no CUDA compiler (nvcc) found")
  else()
    # CUDAARCHS in the environment picks them too (CI builds one)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    enable_language(CUDA)
    # No separable compilation: kbench and the tests link with the C
    # compiler (and so with the sanitizer flags), not nvcc.
    set(CMAKE_CUDA_LINKER_PREFERENCE_PROPAGATES OFF)
    find_package(CUDAToolkit)
    if(CUDAToolkit_FOUND)
      set(KB_CUDA_ENABLED ON)
    else()
      kb_gpu_unavailable(CUDA "nvcc found but not the CUDA toolkit's libraries")
    endif()
  endif()
endif()

# ---- HIP ----
set(KB_HIP_ENABLED OFF)
if(KBENCH_HIP STREQUAL "OFF")
  set(KB_HIP_WHY "KBENCH_HIP=OFF")
else()
  find_program(KB_HIPCC hipcc)
  find_library(KB_AMDHIP64 amdhip64)
  find_path(KB_HIP_INCLUDE hip/hip_runtime_api.h)
  if(NOT KB_HIPCC)
    kb_gpu_unavailable(HIP "no hipcc found (apt-get install hipcc)")
  elseif(NOT KB_AMDHIP64 OR NOT KB_HIP_INCLUDE)
    kb_gpu_unavailable(HIP "no HIP runtime found (apt-get install libamdhip64-dev)")
  else()
    set(KB_HIP_ENABLED ON)
  endif()
endif()

# kb_hip_objects(OUT src...): compile each source with hipcc for
# KBENCH_HIP_ARCHITECTURES into an object file; OUT lists them, to be
# added to a target's sources.  A .cu file is compiled as HIP (-x hip):
# one kernel source for both runtimes.
function(kb_hip_objects out)
  set(objs "")
  set(archs "")
  foreach(a IN LISTS KBENCH_HIP_ARCHITECTURES)
    list(APPEND archs --offload-arch=${a})
  endforeach()
  # -O3 in Debug too, as nvcc's device code is: at -O0 the register-tiled
  # kernels spill past the 64 KiB of local memory and hipcc refuses them
  set(opt -O3)
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    list(APPEND opt -g)
  endif()
  foreach(src IN LISTS ARGN)
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(stem ${src} NAME_WE)
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/hip/${stem}.o)
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/hip
      COMMAND ${KB_HIPCC} -x hip ${archs} ${opt} -fPIC -std=c++17
              -DKB_GPU_HIP -I${PROJECT_SOURCE_DIR} -I${PROJECT_BINARY_DIR}
              -c ${abs} -o ${obj}
      DEPENDS ${abs}
      # the Makefile generators scan the includes (kbench's presets use them)
      IMPLICIT_DEPENDS CXX ${abs}
      COMMENT "hipcc ${src} (${KBENCH_HIP_ARCHITECTURES})"
      VERBATIM)
    list(APPEND objs ${obj})
  endforeach()
  set(${out} ${objs} PARENT_SCOPE)
endfunction()

# ---- gpusim: the same kernels on the CPU (backends/gpu/gpusim) ----
#   -DKBENCH_GPUSIM=ON|OFF      ON (default) builds the backend gpusim
#                               wherever a C++ compiler is found
option(KBENCH_GPUSIM
       "Build gpusim: the hand-written GPU kernels run on the CPU, for correctness (needs a C++ compiler)"
       ON)
set(KB_GPUSIM_ENABLED OFF)
if(NOT KBENCH_GPUSIM)
  set(KB_GPUSIM_WHY "KBENCH_GPUSIM=OFF")
else()
  include(CheckLanguage)
  check_language(CXX)
  if(NOT CMAKE_CXX_COMPILER)
    set(KB_GPUSIM_WHY "no C++ compiler found")
  else()
    enable_language(CXX)
    set(CMAKE_CXX_STANDARD 17)
    set(CMAKE_CXX_STANDARD_REQUIRED ON)
    find_package(Threads REQUIRED)
    set(KB_GPUSIM_ENABLED ON)
  endif()
endif()
