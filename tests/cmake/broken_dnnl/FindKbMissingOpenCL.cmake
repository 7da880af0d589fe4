# Never found: stands in for FindOpenCL on a machine without OpenCL.
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(KbMissingOpenCL
  REQUIRED_VARS KbMissingOpenCL_LIBRARY KbMissingOpenCL_INCLUDE_DIR)
