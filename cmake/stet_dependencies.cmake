# One way to find each dependency; all of them come from Debian packages.
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(Boost 1.81 REQUIRED CONFIG COMPONENTS headers)
find_package(simdjson 3 REQUIRED CONFIG)
find_package(fmt 9 REQUIRED CONFIG)
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto SSL)
# Compression (response bodies, request bodies): zlib and zstd ship CMake
# support (FindZLIB, zstdConfig); brotli only a pkg-config file.
find_package(ZLIB REQUIRED)
find_package(zstd REQUIRED CONFIG)
find_package(PkgConfig REQUIRED)
pkg_check_modules(STET_BROTLI REQUIRED IMPORTED_TARGET GLOBAL libbrotlienc libbrotlidec)
# hiredis: the Redis bus (topics across instances). Required rather than an
# option: one libstet serves both buses, chosen at start by server_options::pubsub,
# so a build without it would fail only at a user's start(), far from the cause.
pkg_check_modules(STET_HIREDIS hiredis)
if(NOT STET_HIREDIS_FOUND)
  message(FATAL_ERROR "hiredis not found (pkg-config 'hiredis'): install libhiredis-dev (scripts/install-deps.sh)")
endif()
# Linked by path, not as an imported target: its compile flags
# (-I/usr/include/hiredis -D_FILE_OFFSET_BITS=64; the define changes nothing
# on 64-bit) would land on every source and change every compile command. The
# code includes <hiredis/...> from the default include path instead.

# llhttp: prefer a system libllhttp when one is installed, otherwise compile the
# three C files that Debian's node-llhttp ships into a static library.
find_library(STET_SYSTEM_LLHTTP NAMES llhttp)
find_path(STET_SYSTEM_LLHTTP_INCLUDE llhttp.h PATHS /usr/include /usr/local/include NO_DEFAULT_PATH)
if(STET_SYSTEM_LLHTTP AND STET_SYSTEM_LLHTTP_INCLUDE)
  add_library(stet_llhttp INTERFACE)
  target_link_libraries(stet_llhttp INTERFACE ${STET_SYSTEM_LLHTTP})
  target_include_directories(stet_llhttp INTERFACE ${STET_SYSTEM_LLHTTP_INCLUDE})
  message(STATUS "stet: using system llhttp ${STET_SYSTEM_LLHTTP}")
else()
  set(STET_LLHTTP_SOURCE_DIR /usr/share/llhttp CACHE PATH "llhttp C sources (Debian node-llhttp)")
  set(STET_LLHTTP_INCLUDE_DIR /usr/share/include/llhttp CACHE PATH "llhttp header (Debian node-llhttp)")
  if(NOT EXISTS ${STET_LLHTTP_SOURCE_DIR}/llhttp.c OR NOT EXISTS ${STET_LLHTTP_INCLUDE_DIR}/llhttp.h)
    message(FATAL_ERROR "llhttp not found: install node-llhttp (scripts/install-deps.sh)")
  endif()
  add_library(stet_llhttp STATIC
    ${STET_LLHTTP_SOURCE_DIR}/llhttp.c ${STET_LLHTTP_SOURCE_DIR}/api.c ${STET_LLHTTP_SOURCE_DIR}/http.c)
  target_include_directories(stet_llhttp PUBLIC $<BUILD_INTERFACE:${STET_LLHTTP_INCLUDE_DIR}>)
  # llhttp.c holds two parsers and defaults to the lenient one, which takes a CR
  # followed by any byte as a line end (the byte is swallowed) and skips other
  # RFC 9112 checks: a message boundary the peer did not send is a smuggling
  # vector. The strict parser refuses all of that.
  target_compile_definitions(stet_llhttp PRIVATE LLHTTP_STRICT_MODE=1)
  set_target_properties(stet_llhttp PROPERTIES C_STANDARD 99 POSITION_INDEPENDENT_CODE ON)
  message(STATUS "stet: building llhttp from ${STET_LLHTTP_SOURCE_DIR}")
endif()
add_library(llhttp::llhttp ALIAS stet_llhttp)

# The SQLite example (examples/sqlite_users) only: Debian's libsqlite3-dev.
if(STET_BUILD_EXAMPLES)
  find_package(SQLite3 REQUIRED)
endif()

# What the library's own code links against, named once: the library, its
# internal targets, the tests and the benchmarks all use this list.
set(STET_DEPENDENCIES Threads::Threads stet_llhttp simdjson::simdjson fmt::fmt OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB
    PkgConfig::STET_BROTLI zstd::libzstd_shared ${STET_HIREDIS_LINK_LIBRARIES})

# STET_IO_URING (the experiment in CMakeLists.txt): Debian's liburing-dev.
if(STET_IO_URING)
  pkg_check_modules(STET_LIBURING REQUIRED liburing)
  list(APPEND STET_DEPENDENCIES ${STET_LIBURING_LINK_LIBRARIES})
endif()
