# Finds the torch flash_powder is built with: the stable C headers under
# torch/include and the shared libraries that export the C shim functions.
# Nothing else of libtorch is used.
#
# Where it looks: cmake/flash_powderTorch.cmake (fp_find_torch) — FP_TORCH_DIR,
# Torch_DIR-style hints, then, when flash_powder is the top-level project, its
# own .venv (scripts/ create it), then the active Python, then the torch an
# earlier configure of the build folder found. A project that adds
# flash_powder with add_subdirectory or FetchContent never gets the .venv.
#
# Defines the targets fp::torch_headers and fp::torch_libs and the variables
#   FP_TORCH_DIR, FP_TORCH_VERSION, FP_TORCH_LIB_DIR, FP_TORCH_HAS_CUDA,
#   FP_TORCH_CPU_LIBRARY, FP_TORCH_LIBRARY.
# Only the torch folder found is cached (FP_FOUND_TORCH_DIR): a later configure
# looks again, so a newly activated environment is seen, and falls back on it
# when nothing else is found.

include("${CMAKE_CURRENT_LIST_DIR}/flash_powderTorch.cmake")

# The headers this build compiles against; the binaries then run on
# FP_RUNTIME_MIN_TORCH and later.
set(FP_TORCH_MIN_VERSION 2.13)
set(FP_RUNTIME_MIN_TORCH 2.11)

set(_fp_project_python "")
if(PROJECT_IS_TOP_LEVEL)
  set(_fp_project_python "${PROJECT_SOURCE_DIR}/.venv/bin/python")
endif()
fp_find_torch(FP_TORCH_DIR _fp_torch_source _fp_torch_tried PROJECT_PYTHON "${_fp_project_python}")

if(NOT FP_TORCH_DIR)
  list(JOIN _fp_torch_tried "\n    " _fp_tried)
  message(FATAL_ERROR
    "flash_powder: no PyTorch found to build against. Any one of these fixes it:\n"
    "  - activate the virtual environment (or conda environment) that has torch ${FP_TORCH_MIN_VERSION} "
    "or newer, then run CMake again in a fresh build folder;\n"
    "  - pass -DFP_TORCH_DIR=<torch folder>: the torch/ folder of a wheel, which "
    "`python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))'` prints, or an unpacked libtorch/;\n"
    "  - pip install torch==2.13.0 into the python3 on PATH;\n"
    "  - in a checkout of flash_powder itself: scripts/test or scripts/demo create .venv with torch.\n"
    "Looked at:\n    ${_fp_tried}")
endif()
if(NOT IS_DIRECTORY "${FP_TORCH_DIR}")
  message(FATAL_ERROR "flash_powder: FP_TORCH_DIR=${FP_TORCH_DIR} (${_fp_torch_source}) is not a folder.")
endif()

fp_torch_version("${FP_TORCH_DIR}" FP_TORCH_VERSION)
if(NOT EXISTS "${FP_TORCH_DIR}/include/torch/headeronly/version.h"
   OR FP_TORCH_VERSION VERSION_LESS FP_TORCH_MIN_VERSION)
  if(NOT FP_TORCH_VERSION)
    set(FP_TORCH_VERSION "of an unknown version")
  endif()
  message(FATAL_ERROR
    "flash_powder: found torch ${FP_TORCH_VERSION} at ${FP_TORCH_DIR} (${_fp_torch_source}); building "
    "flash_powder needs the headers of torch ${FP_TORCH_MIN_VERSION} or newer (the binaries then run on "
    "torch 2.11 and later). Point FP_TORCH_DIR at a newer torch folder, or activate an environment that has one.")
endif()

set(FP_TORCH_LIB_DIR "${FP_TORCH_DIR}/lib")
set(FP_TORCH_CPU_LIBRARY "${FP_TORCH_LIB_DIR}/libtorch_cpu.so")
set(FP_TORCH_LIBRARY "${FP_TORCH_LIB_DIR}/libtorch.so")
if(NOT EXISTS "${FP_TORCH_CPU_LIBRARY}" OR NOT EXISTS "${FP_TORCH_LIBRARY}")
  message(FATAL_ERROR "flash_powder: libtorch_cpu.so / libtorch.so not found in ${FP_TORCH_LIB_DIR}.")
endif()
if(EXISTS "${FP_TORCH_LIB_DIR}/libtorch_cuda.so")
  set(FP_TORCH_HAS_CUDA ON)
else()
  set(FP_TORCH_HAS_CUDA OFF)
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

fp_add_torch_libraries(fp_torch_libs "${FP_TORCH_DIR}")
add_library(fp::torch_libs ALIAS fp_torch_libs)

message(STATUS "flash_powder: torch ${FP_TORCH_VERSION} at ${FP_TORCH_DIR}, from ${_fp_torch_source} "
               "(CUDA libraries: ${FP_TORCH_HAS_CUDA})")
