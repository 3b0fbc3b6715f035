# Installs the already-built stet into WORK_DIR/prefix, then compiles and runs
# tests/consumer/main.cpp with nothing but `pkg-config --cflags --libs stet`
# (no CMake package), as a Makefile-based project would.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${STET_BINARY_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()
file(GLOB_RECURSE pc_files ${WORK_DIR}/prefix/*/stet.pc)
if(NOT pc_files)
  message(FATAL_ERROR "no stet.pc was installed under ${WORK_DIR}/prefix")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(pkg_config ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} ${PKG_CONFIG_EXECUTABLE})

execute_process(COMMAND ${pkg_config} --modversion stet OUTPUT_VARIABLE version
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc OR NOT version STREQUAL EXPECTED_VERSION)
  message(FATAL_ERROR "pkg-config --modversion stet: '${version}' (exit ${rc}), expected '${EXPECTED_VERSION}'")
endif()
execute_process(COMMAND ${pkg_config} --cflags --libs stet OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(rc)
  message(FATAL_ERROR "pkg-config --cflags --libs stet failed: ${rc}")
endif()
message(STATUS "pkg-config --cflags --libs stet: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND ${CXX_COMPILER} -std=c++20 ${CONSUMER_SOURCE_DIR}/main.cpp ${flags}
                        -o ${WORK_DIR}/consumer
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "compiling the consumer with pkg-config's flags failed: ${rc}")
endif()
execute_process(COMMAND ${WORK_DIR}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(rc OR NOT out MATCHES "stet ${EXPECTED_VERSION} listening")
  message(FATAL_ERROR "the consumer failed (${rc}): ${out}")
endif()
