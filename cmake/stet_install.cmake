include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS stet stet_warnings EXPORT stetTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET stet_llhttp AND NOT STET_SYSTEM_LLHTTP)
  install(TARGETS stet_llhttp EXPORT stetTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY include/stet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT stetTargets NAMESPACE stet:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stet)

configure_package_config_file(cmake/stetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stetConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stet)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stetConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/stetConfig.cmake ${PROJECT_BINARY_DIR}/stetConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stet)
