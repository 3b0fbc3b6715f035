# Configures tests/consumer/subdirectory, which takes stet in with
# add_subdirectory; configuring is the test (the checks are in its
# CMakeLists.txt). Building it would compile the library a second time.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}/subdirectory -B ${WORK_DIR} -G ${CMAKE_GENERATOR}
                        -DSTET_SOURCE_DIR=${STET_SOURCE_DIR}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring a project with add_subdirectory(stet) failed: ${rc}")
endif()
