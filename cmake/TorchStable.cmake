# Finds libtorch's stable C ABI: the headers under torch/include and the shared
# libraries that export the C shim functions. Nothing else of libtorch is used.
#
# Sources, first match wins:
#   -DFP_TORCH_DIR=<dir>   a `torch/` folder of a wheel or an unpacked `libtorch/`
#   <repo>/.venv           the project's virtual environment (scripts/ creates it)
#   python3 on PATH        whatever torch that interpreter imports
#
# Defines the targets fp::torch_headers and fp::torch_libs and the variables
#   FP_TORCH_DIR, FP_TORCH_VERSION, FP_TORCH_LIB_DIR, FP_TORCH_HAS_CUDA.

set(FP_TORCH_MIN_VERSION 2.13)

function(_fp_torch_dir_from_python python out)
  # find_spec avoids importing torch, which takes seconds.
  execute_process(
    COMMAND "${python}" -c
            "import importlib.util as u; s = u.find_spec('torch'); print(s.submodule_search_locations[0] if s else '')"
    OUTPUT_VARIABLE dir
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE rc
    ERROR_QUIET)
  if(rc EQUAL 0 AND dir)
    set(${out} "${dir}" PARENT_SCOPE)
  endif()
endfunction()

if(NOT FP_TORCH_DIR)
  set(_fp_pythons "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  find_program(_fp_system_python NAMES python3 python)
  if(_fp_system_python)
    list(APPEND _fp_pythons "${_fp_system_python}")
  endif()
  foreach(python IN LISTS _fp_pythons)
    if(EXISTS "${python}")
      _fp_torch_dir_from_python("${python}" _fp_found)
      if(_fp_found)
        set(FP_TORCH_DIR "${_fp_found}")
        break()
      endif()
    endif()
  endforeach()
endif()

if(NOT FP_TORCH_DIR)
  message(FATAL_ERROR
    "flash_powder: no PyTorch found. Run scripts/test (it creates .venv with torch), "
    "or `pip install torch==2.13.0`, or pass -DFP_TORCH_DIR=<path to torch/ or libtorch/>.")
endif()

set(FP_TORCH_DIR "${FP_TORCH_DIR}" CACHE PATH "torch/ or libtorch/ folder providing the stable C ABI" FORCE)
set(_fp_version_header "${FP_TORCH_DIR}/include/torch/headeronly/version.h")
if(NOT IS_DIRECTORY "${FP_TORCH_DIR}")
  message(FATAL_ERROR "flash_powder: FP_TORCH_DIR=${FP_TORCH_DIR} is not a folder.")
endif()
if(NOT EXISTS "${_fp_version_header}")
  # Older wheels say their version in version.py, libtorch archives in build-version.
  set(_fp_old_version "of an unknown version")
  if(EXISTS "${FP_TORCH_DIR}/version.py")
    file(STRINGS "${FP_TORCH_DIR}/version.py" _fp_line REGEX "^__version__")
    string(REGEX REPLACE "^__version__ *= *['\"]([^'\"]+)['\"].*" "\\1" _fp_old_version "${_fp_line}")
  elseif(EXISTS "${FP_TORCH_DIR}/build-version")
    file(STRINGS "${FP_TORCH_DIR}/build-version" _fp_old_version LIMIT_COUNT 1)
  endif()
  message(FATAL_ERROR
    "flash_powder: found torch ${_fp_old_version} at ${FP_TORCH_DIR}; building needs the "
    "headers of torch ${FP_TORCH_MIN_VERSION} or newer (include/torch/headeronly/version.h is missing).")
endif()

file(STRINGS "${_fp_version_header}" _fp_version_line REGEX "^#define TORCH_VERSION_M(AJOR|INOR) ")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" _fp_major "${_fp_version_line}")
string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" _fp_minor "${_fp_version_line}")
set(FP_TORCH_VERSION "${_fp_major}.${_fp_minor}")
if(FP_TORCH_VERSION VERSION_LESS FP_TORCH_MIN_VERSION)
  message(FATAL_ERROR
    "flash_powder: found torch ${FP_TORCH_VERSION} at ${FP_TORCH_DIR}; building needs the "
    "headers of torch ${FP_TORCH_MIN_VERSION} or newer (the binaries then run on 2.11 and later).")
endif()

set(FP_TORCH_LIB_DIR "${FP_TORCH_DIR}/lib")
find_library(FP_TORCH_CPU_LIBRARY torch_cpu PATHS "${FP_TORCH_LIB_DIR}" NO_DEFAULT_PATH)
find_library(FP_TORCH_LIBRARY torch PATHS "${FP_TORCH_LIB_DIR}" NO_DEFAULT_PATH)
find_library(FP_TORCH_CUDA_LIBRARY torch_cuda PATHS "${FP_TORCH_LIB_DIR}" NO_DEFAULT_PATH)
if(NOT FP_TORCH_CPU_LIBRARY OR NOT FP_TORCH_LIBRARY)
  message(FATAL_ERROR "flash_powder: libtorch_cpu.so / libtorch.so not found in ${FP_TORCH_LIB_DIR}.")
endif()

# Two targets, so that only the abi layer can see torch's headers:
#   fp::torch_headers  the stable C headers, compiled for the 2.11 stable ABI
#   fp::torch_libs     the libraries that export the C shim functions
add_library(fp_torch_headers INTERFACE)
add_library(fp::torch_headers ALIAS fp_torch_headers)
target_include_directories(fp_torch_headers SYSTEM INTERFACE "${FP_TORCH_DIR}/include")
# The binaries target torch 2.11's stable ABI: functions added later are looked
# up at run time (see src/abi/late_bound.cpp), so one build loads on 2.11 and later.
target_compile_definitions(fp_torch_headers INTERFACE TORCH_TARGET_VERSION=0x020B000000000000)

add_library(fp_torch_libs INTERFACE)
add_library(fp::torch_libs ALIAS fp_torch_libs)
set(_fp_torch_libs "${FP_TORCH_CPU_LIBRARY}" "${FP_TORCH_LIBRARY}")
if(FP_TORCH_CUDA_LIBRARY)
  # Nothing references libtorch_cuda.so directly; it must still be loaded so
  # its kernels register with the dispatcher.
  set(FP_TORCH_HAS_CUDA ON)
  list(APPEND _fp_torch_libs "-Wl,--no-as-needed" "${FP_TORCH_CUDA_LIBRARY}" "-Wl,--as-needed")
else()
  set(FP_TORCH_HAS_CUDA OFF)
endif()
target_link_libraries(fp_torch_libs INTERFACE ${_fp_torch_libs} ${CMAKE_DL_LIBS})

message(STATUS "flash_powder: torch ${FP_TORCH_VERSION} at ${FP_TORCH_DIR} (CUDA libraries: ${FP_TORCH_HAS_CUDA})")
