# Script behind the install_and_consume test: install into a temporary prefix; the installed
# headers are one root, <tgc/...>, and include no tgc header by its source-tree path; the
# installed libtgc exports the API and hides tgc's internals and its dependencies' symbols
# (runtime/export.h); the installed tgc command starts; a consumer with a runtime/dtype.h of
# its own builds and runs against the installed package through CMake and through pkg-config,
# and one without it against the build tree (tgc_DIR=<build dir>); a CUDA build's libtgc loads
# and runs a function, and its tgc command starts, without the toolkit's libraries.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Installed headers: all under include/tgc, none including a tgc header as "runtime/...".
file(GLOB top ${prefix}/include/*)
if(NOT top STREQUAL "${prefix}/include/tgc")
  message(FATAL_ERROR "installed include folder holds more than tgc/: ${top}")
endif()
file(GLOB_RECURSE headers ${prefix}/include/tgc/*.h)
list(LENGTH headers header_count)
if(header_count LESS 20)
  message(FATAL_ERROR "only ${header_count} headers were installed")
endif()
foreach(header IN LISTS headers)
  file(STRINGS ${header} quoted REGEX "^#include \"")
  if(quoted)
    message(FATAL_ERROR "${header} includes by a source-tree path: ${quoted}")
  endif()
endforeach()
# What the installed libtgc exports: the functions and classes its headers declare, and none
# of its internal ones (namespaces and a class no installed header declares), nor the symbols
# of fmt, nlohmann-json or LLVM it uses inside (a consumer's own copies could bind to them).
file(GLOB_RECURSE libtgc ${prefix}/libtgc.so.*.*.*)
if(NOT libtgc)
  message(FATAL_ERROR "no libtgc.so.<version> was installed under ${prefix}")
endif()
find_program(NM nm REQUIRED)
run(${NM} -D -C --defined-only ${libtgc})
set(exports "${last_output}")
foreach(api "T tgc::version()" "T tgc::Function::operator()(" "T tgc::function(" "V typeinfo for tgc::Error\n"
            " tgc::Tensor tgc::Tensor::from_vector<float>(")
  string(FIND "${exports}" "${api}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the installed libtgc does not export '${api}', which its headers declare")
  endif()
endforeach()
foreach(hidden "tgc::cuda::" "tgc::cfam::" "tgc::gpu::" "tgc::canon::" "tgc::lang::" "tgc::cpu::"
               "tgc::opencl::" "tgc::Profiler::" "fmt::" "nlohmann::" "llvm::")
  string(FIND "${exports}" "${hidden}" at)
  if(NOT at EQUAL -1)
    string(SUBSTRING "${exports}" ${at} 200 leaked)
    message(FATAL_ERROR "the installed libtgc exports an internal symbol (${hidden}): ${leaked}")
  endif()
endforeach()
string(REGEX MATCHALL "\n" export_lines "${exports}")
list(LENGTH export_lines export_count)
message(STATUS "the installed libtgc exports ${export_count} symbols")

run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/consumer -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)
if(NOT last_output MATCHES "consumer: 1.5 2.5 3.5 \\(tgc [0-9]+\\.[0-9]+\\.[0-9]+\\)\nbeside the consumer's own runtime/dtype.h")
  message(FATAL_ERROR "unexpected consumer output: ${last_output}")
endif()
message(STATUS "${last_output}")

# The installed command, with no library path set.
run(${prefix}/bin/tgc devices)
if(NOT last_output MATCHES "cpu +available")
  message(FATAL_ERROR "the installed tgc devices printed: ${last_output}")
endif()

# As on a machine without the CUDA toolkit: a CUDA build's libtgc still loads and runs a CPU
# function (NVRTC and cuBLAS are loaded at run time), and its devices say which library is
# missing.
set(no_toolkit TGC_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 TGC_CUBLAS_LIBRARY=/nonexistent/libcublas.so.13
               TGC_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so.13)
run(${CMAKE_COMMAND} -E env ${no_toolkit} ${WORK_DIR}/consumer/consumer)
if(NOT last_output MATCHES "consumer: 1.5 2.5 3.5")
  message(FATAL_ERROR "without the toolkit's libraries, the consumer printed: ${last_output}")
endif()
run(${CMAKE_COMMAND} -E env ${no_toolkit} ${prefix}/bin/tgc devices)
if(NOT last_output MATCHES "cuda     not built" AND NOT last_output MATCHES "nvrtc    unavailable  \\(libnvrtc")
  message(FATAL_ERROR "without the toolkit's libraries, the installed tgc devices printed: ${last_output}")
endif()

# pkg-config, as a Makefile would use it.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB_RECURSE pc_file ${prefix}/tgc.pc)
if(NOT pc_file)
  message(FATAL_ERROR "no tgc.pc was installed under ${prefix}")
endif()
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
get_filename_component(lib_dir "${pc_dir}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs tgc OUTPUT_VARIABLE pc_flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find tgc in ${pc_dir}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
separate_arguments(consumer_flags UNIX_COMMAND "${CONSUMER_FLAGS}")
run(${CXX} -std=c++20 ${consumer_flags} -I${CONSUMER_SOURCE}/include -DCONSUMER_OWN_HEADERS
    ${CONSUMER_SOURCE}/main.cpp ${pc_flags} -Wl,-rpath,${lib_dir} -o ${WORK_DIR}/pc_consumer)
run(${WORK_DIR}/pc_consumer)
if(NOT last_output MATCHES "consumer: 1.5 2.5 3.5 \\(tgc [0-9]+\\.[0-9]+\\.[0-9]+\\)\nbeside the consumer's own runtime/dtype.h")
  message(FATAL_ERROR "unexpected output of the pkg-config consumer: ${last_output}")
endif()

# The build tree as a package.
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/tree_consumer -G ${GENERATOR}
    -Dtgc_DIR=${BUILD_DIR} -DOWN_HEADERS=OFF -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=${CONSUMER_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/tree_consumer)
run(${WORK_DIR}/tree_consumer/consumer)
if(NOT last_output MATCHES "consumer: 1.5 2.5 3.5 \\(tgc [0-9]+\\.[0-9]+\\.[0-9]+\\)")
  message(FATAL_ERROR "unexpected output of the build-tree consumer: ${last_output}")
endif()
