#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "tgc::tgc" for configuration "Release"
set_property(TARGET tgc::tgc APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(tgc::tgc PROPERTIES
  IMPORTED_LINK_DEPENDENT_LIBRARIES_RELEASE "fmt::fmt"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libtgc.so.0.1.0"
  IMPORTED_SONAME_RELEASE "libtgc.so.0"
  )

list(APPEND _cmake_import_check_targets tgc::tgc )
list(APPEND _cmake_import_check_files_for_tgc::tgc "${_IMPORT_PREFIX}/lib/libtgc.so.0.1.0" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
