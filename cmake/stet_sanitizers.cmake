# STET_SANITIZE applies to everything built in this tree (library, tests,
# examples) so that the instrumented runtime sees every allocation.
if(STET_SANITIZE)
  add_compile_options(-fsanitize=${STET_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${STET_SANITIZE})
endif()
# Frame pointers everywhere keep perf's call graphs usable in release builds.
add_compile_options(-fno-omit-frame-pointer)
