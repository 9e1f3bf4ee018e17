# Installs tgc's headers under one root, <prefix>/include/tgc, as consumers include them:
# <tgc/tgc.h> and the other public headers (frontend/include/tgc), and the internal headers
# they include, found by following their #include lines from the public ones (not every
# header of runtime/, ops/ and compiler/). Inside the source tree an
# internal header is included by its path from the tree's root ("runtime/dtype.h"); installed,
# every such line becomes <tgc/runtime/dtype.h>, so <prefix>/include is the only include root a
# consumer needs and a consumer's own runtime/dtype.h cannot stand in for tgc's. Run by
# `cmake --install` (cmake/install.cmake sets TGC_SOURCE_DIR, TGC_STAGING_DIR and
# TGC_INCLUDE_DIR); file(INSTALL) honours DESTDIR and records the manifest. Each installed
# header must mark its declarations as exported (runtime/export.h).

cmake_policy(VERSION 3.25)  # an install script runs under no project's policies
set(public_dir ${TGC_SOURCE_DIR}/frontend/include)
file(REMOVE_RECURSE ${TGC_STAGING_DIR})

# Headers to visit, by the name they are included as ("tgc/function.h", "runtime/tensor.h").
file(GLOB public_headers RELATIVE ${public_dir} ${public_dir}/tgc/*.h)
set(queue ${public_headers})
set(visited "")
while(queue)
  list(POP_FRONT queue name)
  if(name IN_LIST visited)
    continue()
  endif()
  list(APPEND visited ${name})
  if(name MATCHES "^tgc/")
    set(path ${public_dir}/${name})
    set(staged ${TGC_STAGING_DIR}/${name})
  else()
    set(path ${TGC_SOURCE_DIR}/${name})
    set(staged ${TGC_STAGING_DIR}/tgc/${name})
  endif()
  file(READ ${path} text)
  # libtgc exports only what installed headers declare inside these markers (runtime/export.h):
  # a header installed without them would compile in a consumer and fail to link.
  if(NOT name STREQUAL "runtime/export.h" AND NOT text MATCHES "\nTGC_API_BEGIN")
    message(FATAL_ERROR "${path} is installed (an installed header includes it) but does not wrap "
                        "its declarations in TGC_API_BEGIN ... TGC_API_END (runtime/export.h), so "
                        "libtgc would not export them")
  endif()
  string(REGEX MATCHALL "#include [<\"][^>\"]+[>\"]" includes "${text}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include [<\"]([^>\"]+)[>\"]" "\\1" included "${line}")
    if(line MATCHES "^#include <tgc/" AND EXISTS ${public_dir}/${included})
      list(APPEND queue ${included})
    elseif(line MATCHES "^#include \"" AND EXISTS ${TGC_SOURCE_DIR}/${included})
      list(APPEND queue ${included})
      string(REPLACE "${line}" "#include <tgc/${included}>" text "${text}")
    elseif(line MATCHES "^#include \"")
      message(FATAL_ERROR "${path}: ${line} names no header of tgc's source tree; an installed "
                          "header can include only tgc's own headers and system ones")
    endif()
  endforeach()
  file(WRITE ${staged} "${text}")
endwhile()

# TGC_INCLUDE_DIR is CMAKE_INSTALL_INCLUDEDIR: under the prefix given to `cmake --install`
# unless the build set it absolute.
if(NOT IS_ABSOLUTE ${TGC_INCLUDE_DIR})
  set(TGC_INCLUDE_DIR ${CMAKE_INSTALL_PREFIX}/${TGC_INCLUDE_DIR})
endif()
file(INSTALL DESTINATION ${TGC_INCLUDE_DIR} TYPE DIRECTORY FILES ${TGC_STAGING_DIR}/tgc)
