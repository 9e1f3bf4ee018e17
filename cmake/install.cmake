# Installs libtgc, its headers (the public <tgc/...> API and the component headers it
# includes) and a CMake package so consumers can find_package(tgc).
include(CMakePackageConfigHelpers)

install(TARGETS tgc tgc_headers EXPORT tgcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tgc_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY frontend/include/tgc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# runtime/comm/mpi_api.h is internal: it needs Open MPI's mpi.h, which consumers need not have.
foreach(component runtime ops compiler)
  install(DIRECTORY ${component} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tgc
          FILES_MATCHING PATTERN "*.h" PATTERN "mpi_api.h" EXCLUDE)
endforeach()
install(EXPORT tgcTargets NAMESPACE tgc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
configure_package_config_file(cmake/tgcConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tgcConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tgcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tgcConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tgcConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
