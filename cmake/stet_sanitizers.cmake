# STET_SANITIZE applies to everything built in this tree (library, tests,
# examples) so that the instrumented runtime sees every allocation.
if(STET_SANITIZE)
  # -O1 -g1, as the sanitizers' own documentation advises: reports keep their
  # file:line stacks, and the build CI runs twice takes half the compile time.
  add_compile_options(-fsanitize=${STET_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all -O1 -g1)
  add_link_options(-fsanitize=${STET_SANITIZE})
endif()
# STET_BUILD_FUZZ instruments the whole tree for libFuzzer: the coverage
# counters must reach the library (not only the fuzz targets), or the fuzzer is
# blind to the code it is meant to explore. Only the fuzz executables link the
# libFuzzer main (fuzz/CMakeLists.txt).
if(STET_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "STET_BUILD_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(STET_SANITIZE)
    message(FATAL_ERROR "STET_BUILD_FUZZ brings its own sanitizers (address,undefined); leave STET_SANITIZE empty")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
# Frame pointers everywhere keep perf's call graphs usable in release builds.
add_compile_options(-fno-omit-frame-pointer)
