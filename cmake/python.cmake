# Whether to build the Python module tgc._tgc (python/, docs/python.md), and with which
# Python: sets TGC_HAVE_PYTHON. AUTO builds it when Python and nanobind are found
# (scripts/setup installs nanobind), so scripts/test runs tests/python too; pip install .
# builds it through scikit-build-core (pyproject.toml), which sets ON.
set(TGC_BUILD_PYTHON AUTO CACHE STRING "Build the Python module tgc._tgc: AUTO, ON or OFF")
set_property(CACHE TGC_BUILD_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(TGC_HAVE_PYTHON OFF)
# Where Debian's python3 refuses pip installs, scripts/setup puts nanobind and pytest into
# .venv/: use its Python when the python3 on PATH has no nanobind and none was named
# (scikit-build-core names its own).
if(NOT DEFINED Python_EXECUTABLE AND EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
  find_program(path_python python3 NO_CACHE)
  set(nb_on_path 1)
  if(path_python)
    execute_process(COMMAND "${path_python}" -c "import nanobind" RESULT_VARIABLE nb_on_path
                    OUTPUT_QUIET ERROR_QUIET)
  endif()
  if(NOT nb_on_path EQUAL 0)
    set(Python_EXECUTABLE ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
  endif()
endif()
if(TGC_BUILD_PYTHON STREQUAL "AUTO" AND (TGC_SANITIZE OR TGC_SANITIZE_THREAD OR TGC_FUZZ))
  # A sanitized module loads only into a Python started with the sanitizer's runtime
  # preloaded; the sanitizer presets test the C++ suites.
  message(STATUS "tgc: sanitizer build; building without the Python module")
elseif(TGC_BUILD_PYTHON STREQUAL "AUTO")
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir RESULT_VARIABLE nb_missing
                    OUTPUT_VARIABLE nanobind_DIR OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(nb_missing EQUAL 0)
      set(TGC_HAVE_PYTHON ON)
    endif()
  endif()
  if(NOT TGC_HAVE_PYTHON)
    message(STATUS "tgc: Python or nanobind not found; building without the Python module")
  endif()
elseif(TGC_BUILD_PYTHON)
  set(TGC_HAVE_PYTHON ON)
endif()
