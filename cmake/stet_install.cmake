include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS stet stet_warnings EXPORT stetTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET stet_llhttp AND NOT STET_SYSTEM_LLHTTP)
  install(TARGETS stet_llhttp EXPORT stetTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY include/stet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${STET_GENERATED_INCLUDE_DIR}/stet/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/stet)
install(EXPORT stetTargets NAMESPACE stet:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stet)

configure_package_config_file(cmake/stetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stetConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stet)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stetConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/stetConfig.cmake ${PROJECT_BINARY_DIR}/stetConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/stet)

# stet.pc beside the CMake package. What a consumer links depends on the kind of
# library: a static libstet.a needs everything stet links privately (fmt,
# simdjson, libssl, libcrypto, zlib, brotli, zstd, hiredis and the internal llhttp archive) on every link, so they
# are public here; a shared libstet.so carries them itself and lists them as
# private, for `pkg-config --static` only.
get_target_property(stet_library_type stet TYPE)
if(TARGET stet_llhttp AND NOT STET_SYSTEM_LLHTTP)
  set(stet_pc_llhttp "-lstet_llhttp")
else()
  set(stet_pc_llhttp "-lllhttp")
endif()
set(stet_pc_deps "fmt simdjson libssl libcrypto zlib libbrotlienc libbrotlidec libzstd hiredis")  # compression, permessage-deflate; the Redis bus
if(stet_library_type STREQUAL "STATIC_LIBRARY")
  set(STET_PC_REQUIRES "${stet_pc_deps}")
  set(STET_PC_REQUIRES_PRIVATE "")
  set(STET_PC_LIBS "${stet_pc_llhttp}")
  set(STET_PC_LIBS_PRIVATE "")
else()
  set(STET_PC_REQUIRES "")
  set(STET_PC_REQUIRES_PRIVATE "${stet_pc_deps}")
  set(STET_PC_LIBS "")
  set(STET_PC_LIBS_PRIVATE "${stet_pc_llhttp}")
endif()
set(stet_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH STET_PC_PREFIX_FROM_PCDIR /${stet_pc_dir} /)
string(REGEX REPLACE "/$" "" STET_PC_PREFIX_FROM_PCDIR "${STET_PC_PREFIX_FROM_PCDIR}")
configure_file(cmake/stet.pc.in ${PROJECT_BINARY_DIR}/stet.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/stet.pc DESTINATION ${stet_pc_dir})
