# Warning flags travel on an INTERFACE target, never as global flags, so that
# consumers of stet::stet never inherit them.
add_library(stet_warnings INTERFACE)
target_compile_options(stet_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                            -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough>)
