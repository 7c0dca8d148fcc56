# Helpers shared by every folder.
#
# sepp_library(NAME [DEPS targets...])
#   Builds src/NAME/*.cc into the static library sepp_NAME. DEPS are the lower
#   layers (sepp_base, ...) and third-party targets it links. Files are globbed
#   so that adding a file never means editing a shared CMakeLists.
function(sepp_library name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc
                                   ${CMAKE_CURRENT_SOURCE_DIR}/*/*.cc)
  add_library(sepp_${name} STATIC ${srcs})
  target_include_directories(sepp_${name} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(sepp_${name} PUBLIC ${ARG_DEPS})
endfunction()

# sepp_test(FOLDER [DEPS targets...] [SOURCES extra...])
#   One GoogleTest binary per folder: tests/FOLDER/*_test.cc -> test_FOLDER,
#   registered with CTest under the folder's name.
function(sepp_test folder)
  cmake_parse_arguments(ARG "" "" "DEPS;SOURCES" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/${folder}/*_test.cc)
  if(NOT srcs)
    return()
  endif()
  add_executable(test_${folder} ${srcs} ${ARG_SOURCES})
  target_link_libraries(test_${folder} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock)
  target_include_directories(test_${folder} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
  target_compile_definitions(test_${folder} PRIVATE
    SEPP_SOURCE_DIR="${CMAKE_SOURCE_DIR}" SEPP_BINARY_DIR="${CMAKE_BINARY_DIR}")
  add_test(NAME ${folder} COMMAND test_${folder} --gtest_color=no)
  set_tests_properties(${folder} PROPERTIES TIMEOUT 900)
endfunction()

# sepp_bench(NAME SOURCE DEPS...)
#   A Google Benchmark binary bench_NAME from SOURCE linking DEPS; nothing
#   when Google Benchmark is not installed.
function(sepp_bench name source)
  if(NOT benchmark_FOUND)
    return()
  endif()
  add_executable(bench_${name} ${source})
  target_link_libraries(bench_${name} PRIVATE ${ARGN} benchmark::benchmark)
  target_include_directories(bench_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
endfunction()
