# Included (OPTIONAL) at the end of kernels/CMakeLists.txt: CMake cannot put if/add_subdirectory/
# endif on the one line that file grants this backend, so the condition lives here.
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/CMakeLists.txt)
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_BINARY_DIR}/torch)
endif()
