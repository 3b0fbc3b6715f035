# checkheaders: every public header, and every private header under src/,
# compiles on its own. One generated .cpp per header includes only that header
# (twice, so a missing #pragma once shows as a redefinition); the .cpp files
# form object libraries that are part of the default build whenever the tests
# are (scripts/test.sh, and so CI). A header added under include/stet/ or src/
# is picked up at the next build (CONFIGURE_DEPENDS). Modelled on Seastar's
# cmake/CheckHeaders.cmake.

file(GLOB_RECURSE STET_PUBLIC_HEADERS CONFIGURE_DEPENDS
     RELATIVE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/include/stet/*.hpp)

set(stet_check_headers_dir ${PROJECT_BINARY_DIR}/checkheaders)
set(stet_check_headers_sources)
foreach(header IN LISTS STET_PUBLIC_HEADERS)
  set(source ${stet_check_headers_dir}/${header}.cpp)
  # file(CONFIGURE) rewrites only when the text changes, so a re-configure
  # does not make every check recompile.
  file(CONFIGURE OUTPUT ${source} CONTENT "#include <${header}>\n#include <${header}>\n" @ONLY)
  list(APPEND stet_check_headers_sources ${source})
endforeach()

add_library(checkheaders OBJECT ${stet_check_headers_sources})
# Only what an installed consumer gets: the public include path and the C++20
# requirement of stet::stet, never src/.
target_include_directories(checkheaders PRIVATE ${PROJECT_SOURCE_DIR}/include ${STET_GENERATED_INCLUDE_DIR})
target_compile_features(checkheaders PRIVATE cxx_std_20)
target_link_libraries(checkheaders PRIVATE stet_warnings)
# Only whether each header compiles matters, not the code: no optimiser, no debug info.
target_compile_options(checkheaders PRIVATE -O0 -g0)

# Every option struct takes designated initializers without a warning (see the file).
set(stet_designated_check ${PROJECT_SOURCE_DIR}/tests/build_checks/designated_initializers.cpp)
target_sources(checkheaders PRIVATE ${stet_designated_check})
set_source_files_properties(${stet_designated_check} PROPERTIES COMPILE_OPTIONS "-Werror")

# Private headers: each compiled alone with what the library's own sources get
# (src/ on the include path, the dependencies' headers). Those under src/net/
# get Asio's settings (stet_asio), as src/net/'s sources do, but not its
# precompiled header: a header that uses Asio must include net/asio.hpp itself.
file(GLOB_RECURSE STET_PRIVATE_HEADERS CONFIGURE_DEPENDS
     RELATIVE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/*.hpp)

set(stet_check_private_sources)
set(stet_check_net_sources)
foreach(header IN LISTS STET_PRIVATE_HEADERS)
  set(source ${stet_check_headers_dir}/src/${header}.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "#include \"${header}\"\n#include \"${header}\"\n" @ONLY)
  if(header MATCHES "^net/")
    list(APPEND stet_check_net_sources ${source})
  else()
    list(APPEND stet_check_private_sources ${source})
  endif()
endforeach()

add_library(checkheaders_private OBJECT ${stet_check_private_sources})
target_link_libraries(checkheaders_private PRIVATE stet_internal)
add_library(checkheaders_net OBJECT ${stet_check_net_sources})
target_link_libraries(checkheaders_net PRIVATE stet_asio)
foreach(target checkheaders_private checkheaders_net)
  target_compile_options(${target} PRIVATE -O0 -g0)
endforeach()
# `cmake --build build --target checkheaders` checks every header, public and private.
add_dependencies(checkheaders checkheaders_private checkheaders_net)
