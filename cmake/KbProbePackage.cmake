# KbProbePackage.cmake - kb_probe_package(<name> <ok-var> <reason-var>):
# can find_package(<name> CONFIG) succeed here?
#
# A package's own config file can abort configure: Debian 12's
# dnnl-config.cmake calls find_package(OpenCL REQUIRED), which stops
# everything with "Could NOT find OpenCL" when the OpenCL development files
# are missing.  For an optional backend that must mean "skip it, say why",
# so the package is first found in a throw-away sub-configure; only when
# that succeeds may the caller run the real find_package.  On failure
# <reason-var> holds the first line of the sub-configure's error.
function(kb_probe_package name ok_var reason_var)
  set(dir ${CMAKE_BINARY_DIR}/CMakeFiles/kb_probe/${name})
  file(REMOVE_RECURSE ${dir})
  file(WRITE ${dir}/src/CMakeLists.txt
    "cmake_minimum_required(VERSION ${CMAKE_MINIMUM_REQUIRED_VERSION})\n"
    "project(kb_probe_${name} LANGUAGES C)\n"
    "find_package(${name} CONFIG QUIET)\n"
    "if(NOT ${name}_FOUND)\n"
    "  message(FATAL_ERROR \"no ${name} CMake package found\")\n"
    "endif()\n")
  # The same compiler and search paths as the real configure.
  set(args -G ${CMAKE_GENERATOR} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
           "-DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}"
           "-DCMAKE_MODULE_PATH=${CMAKE_MODULE_PATH}")
  if(CMAKE_TOOLCHAIN_FILE)   # a cross build's sysroot and search modes
    list(APPEND args "-DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}" "-DKB_SYSROOT=${KB_SYSROOT}")
  endif()
  if(${name}_DIR)
    list(APPEND args "-D${name}_DIR=${${name}_DIR}")
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${dir}/src -B ${dir}/build ${args}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(rc EQUAL 0)
    set(${ok_var} TRUE PARENT_SCOPE)
    set(${reason_var} "" PARENT_SCOPE)
    return()
  endif()
  # "CMake Error at FILE:LINE (message):\n  <the message, wrapped>\n
  # Call Stack ..." or a blank line: the message, on one line.
  if(err MATCHES "CMake Error[^\n]*\n(.*)")
    string(REGEX REPLACE "\n(\n|Call Stack).*" "" reason "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "[ \t\n]+" " " reason "${reason}")
    string(STRIP "${reason}" reason)
  else()
    set(reason "sub-configure failed (exit ${rc}), see ${dir}/build")
  endif()
  # Where the broken package lives, when its config file was found.
  if(EXISTS ${dir}/build/CMakeCache.txt)
    file(STRINGS ${dir}/build/CMakeCache.txt found_dir
         REGEX "^${name}_DIR:[A-Z]+=.+")
    if(found_dir AND NOT found_dir MATCHES "-NOTFOUND$")
      string(REGEX REPLACE "^[^=]*=" "" found_dir "${found_dir}")
      set(reason "${name} package in ${found_dir}: ${reason}")
    endif()
  endif()
  string(REPLACE ";" "," reason "${reason}")  # callers keep it in lists
  set(${ok_var} FALSE PARENT_SCOPE)
  set(${reason_var} "${reason}" PARENT_SCOPE)
endfunction()
