# Installs libtgc, its headers (the public <tgc/...> API and the component headers it
# includes, all under <tgc/...>: cmake/install_headers.cmake), a CMake package so consumers can find_package(tgc), and a pkg-config file
# (tgc.pc). The build tree is a package too: tgc_DIR=<build dir> finds the library built there.
include(CMakePackageConfigHelpers)

install(TARGETS tgc tgc_headers EXPORT tgcTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tgc_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(CODE "set(TGC_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
              set(TGC_STAGING_DIR \"${PROJECT_BINARY_DIR}/installed_headers\")
              set(TGC_INCLUDE_DIR \"${CMAKE_INSTALL_INCLUDEDIR}\")")
install(SCRIPT cmake/install_headers.cmake)
install(EXPORT tgcTargets NAMESPACE tgc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
configure_package_config_file(cmake/tgcConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tgcConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tgcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tgcConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tgcConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tgc)

# The build tree as a package: find_package(tgc) with tgc_DIR=<this build directory>.
export(EXPORT tgcTargets NAMESPACE tgc:: FILE ${PROJECT_BINARY_DIR}/tgcTargets.cmake)
file(WRITE ${PROJECT_BINARY_DIR}/tgcConfig.cmake
     "# tgc's build tree as a CMake package (cmake/install.cmake).\n"
     "include(\"\${CMAKE_CURRENT_LIST_DIR}/tgcTargets.cmake\")\n")
# pkg-config: `pkg-config --cflags --libs tgc` with PKG_CONFIG_PATH=<prefix>/lib/pkgconfig. The
# prefix is found from the file's own place, so an installed tree can move.
file(RELATIVE_PATH tgc_pc_to_prefix ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(cmake/tgc.pc.in ${PROJECT_BINARY_DIR}/tgc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tgc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
