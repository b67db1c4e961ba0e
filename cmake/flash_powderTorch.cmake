# Locating a PyTorch installation, shared by flash_powder's own build
# (cmake/TorchStable.cmake) and by projects that use an installed
# flash_powder (flash_powderConfig.cmake, installed beside this file).
#
# A "torch folder" is the `torch/` folder of a wheel or an unpacked
# `libtorch/`: it holds include/ and lib/libtorch_cpu.so.
#
# fp_find_torch(<out_dir> <out_source> <out_tried> [BESIDE <folder>] [PROJECT_PYTHON <python>])
#   Looks, in this order, first match wins:
#     1. FP_TORCH_DIR           CMake variable, else environment variable
#     2. Torch_DIR, Torch_ROOT  CMake or environment variables as for
#                               find_package(Torch): the folder of
#                               TorchConfig.cmake, or the torch folder itself;
#                               then CMAKE_PREFIX_PATH entries that hold one
#                               (torch.utils.cmake_prefix_path)
#     3. BESIDE                 when given and a torch folder: the torch package
#                               in the site-packages of a flash_powder wheel
#     4. PROJECT_PYTHON         when given (flash_powder's own build: its .venv)
#     5. the activated Python   $VIRTUAL_ENV, then $CONDA_PREFIX
#     6. the torch found before by an earlier configure of this build folder
#                               (FP_FOUND_TORCH_DIR in CMakeCache.txt), so that a
#                               re-run from a shell without that environment
#                               keeps it; a newly activated environment (5) wins
#     7. python3 on PATH
#   Sets <out_dir> to the torch folder ("" when none), <out_source> to where it
#   came from, and <out_tried> to one line per place looked at without success.
#   Remembers what it found in the cache entry FP_FOUND_TORCH_DIR (for 6).
#
# fp_torch_version(<dir> <out_version>)
#   "MAJOR.MINOR" of the torch in <dir>, "" when it cannot be told.
#
# fp_add_torch_libraries(<target> <dir> [IMPORTED])
#   An INTERFACE target (an imported one with IMPORTED) that links
#   libtorch_cpu.so and libtorch.so of <dir>. They are linked even though a
#   program calls nothing in them directly, so that the program records them
#   as needed and its RUNPATH (CMake adds <dir>/lib) finds them: the
#   flash_powder libraries themselves carry no path to any torch. A CUDA
#   build's libtorch.so needs libtorch_cuda.so, so its kernels register
#   without linking it by name, and the same program runs on a CPU-only torch.

# The torch folder a Python imports, without importing torch (seconds).
function(_fp_torch_of_python python out)
  set(${out} "" PARENT_SCOPE)
  if(NOT EXISTS "${python}")
    return()
  endif()
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

function(_fp_is_torch_dir dir out)
  if(dir AND EXISTS "${dir}/lib/libtorch_cpu.so" AND IS_DIRECTORY "${dir}/include")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# A Torch_DIR-style hint: <torch>/share/cmake/Torch, <torch>/share/cmake or <torch>.
function(_fp_torch_of_hint hint out)
  set(${out} "" PARENT_SCOPE)
  foreach(candidate "${hint}/../../.." "${hint}/../.." "${hint}")
    get_filename_component(candidate "${candidate}" ABSOLUTE)
    _fp_is_torch_dir("${candidate}" ok)
    if(ok)
      set(${out} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The first of <pythons> ("<python>|<what it is>" entries) that imports a torch
# folder: sets <out_found> and <out_source>, and appends to <inout_tried> one
# line per Python without one.
function(_fp_torch_of_pythons pythons out_found out_source inout_tried)
  set(tried "${${inout_tried}}")
  set(${out_found} "" PARENT_SCOPE)
  foreach(entry IN LISTS pythons)
    string(REGEX REPLACE "\\|.*$" "" python "${entry}")
    string(REGEX REPLACE "^[^|]*\\|" "" what "${entry}")
    if(NOT EXISTS "${python}")
      list(APPEND tried "${what}: ${python} does not exist")
      continue()
    endif()
    _fp_torch_of_python("${python}" dir)
    _fp_is_torch_dir("${dir}" ok)
    if(ok)
      set(${out_found} "${dir}" PARENT_SCOPE)
      set(${out_source} "${what}, ${python}" PARENT_SCOPE)
      break()
    elseif(dir)
      list(APPEND tried "${what}: ${python} imports torch from ${dir}, which has no lib/libtorch_cpu.so")
    else()
      list(APPEND tried "${what}: ${python} has no torch installed")
    endif()
  endforeach()
  set(${inout_tried} "${tried}" PARENT_SCOPE)
endfunction()

# Keeps the torch folder found for the next configure of this build folder:
# a re-run from a shell without the environment it came from still finds it.
function(_fp_remember_torch dir)
  set(FP_FOUND_TORCH_DIR "${dir}" CACHE INTERNAL
      "The torch folder flash_powder found at the last configure (cmake/flash_powderTorch.cmake)")
endfunction()

function(fp_find_torch out_dir out_source out_tried)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "BESIDE;PROJECT_PYTHON" "")
  set(tried "")
  set(found "")
  set(source "")

  # 1. FP_TORCH_DIR: taken as given; a wrong one is an error, not skipped.
  set(explicit "${FP_TORCH_DIR}")
  set(explicit_source "FP_TORCH_DIR")
  if(NOT explicit AND DEFINED ENV{FP_TORCH_DIR})
    set(explicit "$ENV{FP_TORCH_DIR}")
    set(explicit_source "environment variable FP_TORCH_DIR")
  endif()
  if(explicit)
    get_filename_component(explicit "${explicit}" ABSOLUTE)
    _fp_remember_torch("${explicit}")
    set(${out_dir} "${explicit}" PARENT_SCOPE)
    set(${out_source} "${explicit_source}" PARENT_SCOPE)
    set(${out_tried} "" PARENT_SCOPE)
    return()
  endif()

  # 2. Hints in the style of find_package(Torch).
  set(hints "")
  foreach(name Torch_DIR Torch_ROOT TORCH_ROOT)
    if(${name})
      list(APPEND hints "${name}=${${name}}")
    endif()
    if(DEFINED ENV{${name}})
      list(APPEND hints "environment variable ${name}=$ENV{${name}}")
    endif()
  endforeach()
  foreach(prefix IN LISTS CMAKE_PREFIX_PATH)
    if(EXISTS "${prefix}/Torch/TorchConfig.cmake" OR EXISTS "${prefix}/share/cmake/Torch/TorchConfig.cmake")
      list(APPEND hints "CMAKE_PREFIX_PATH entry=${prefix}")
    endif()
  endforeach()
  foreach(hint IN LISTS hints)
    string(REGEX REPLACE "^[^=]*=" "" path "${hint}")
    string(REGEX REPLACE "=.*$" "" name "${hint}")
    if(EXISTS "${path}/Torch/TorchConfig.cmake")
      set(path "${path}/Torch")
    endif()
    _fp_torch_of_hint("${path}" found)
    if(found)
      set(source "${name} (${path})")
      break()
    endif()
    list(APPEND tried "${name}=${path}: no torch folder (with lib/libtorch_cpu.so) there or 3 levels up")
  endforeach()

  # 3. The torch package beside a wheel's flash_powder.
  if(NOT found AND arg_BESIDE)
    _fp_is_torch_dir("${arg_BESIDE}" ok)
    if(ok)
      get_filename_component(found "${arg_BESIDE}" REALPATH)
      set(source "the torch package beside flash_powder's, in the same site-packages")
    endif()
  endif()

  # 4 and 5: the project's and the activated environment's Pythons.
  if(NOT found)
    set(pythons "")
    if(arg_PROJECT_PYTHON)
      list(APPEND pythons "${arg_PROJECT_PYTHON}|the project's own environment")
    endif()
    if(DEFINED ENV{VIRTUAL_ENV})
      list(APPEND pythons "$ENV{VIRTUAL_ENV}/bin/python|the active virtual environment (VIRTUAL_ENV)")
    endif()
    if(DEFINED ENV{CONDA_PREFIX})
      list(APPEND pythons "$ENV{CONDA_PREFIX}/bin/python|the active conda environment (CONDA_PREFIX)")
    endif()
    _fp_torch_of_pythons("${pythons}" found source tried)
  endif()

  # 6. What an earlier configure of this build folder found.
  if(NOT found AND FP_FOUND_TORCH_DIR)
    _fp_is_torch_dir("${FP_FOUND_TORCH_DIR}" ok)
    if(ok)
      set(found "${FP_FOUND_TORCH_DIR}")
      set(source "the earlier configure of this build folder (FP_FOUND_TORCH_DIR in CMakeCache.txt)")
    else()
      list(APPEND tried "FP_FOUND_TORCH_DIR=${FP_FOUND_TORCH_DIR} (an earlier configure's): no longer a torch folder")
    endif()
  endif()

  # 7. What a shell runs: PATH only, none of CMake's own search places.
  if(NOT found)
    find_program(path_python NAMES python3 python NO_CACHE NO_DEFAULT_PATH PATHS ENV PATH)
    if(path_python)
      _fp_torch_of_pythons("${path_python}|python3 on PATH" found source tried)
    else()
      list(APPEND tried "python3 on PATH: there is none")
    endif()
  endif()

  if(found)
    _fp_remember_torch("${found}")
  endif()
  set(${out_dir} "${found}" PARENT_SCOPE)
  set(${out_source} "${source}" PARENT_SCOPE)
  set(${out_tried} "${tried}" PARENT_SCOPE)
endfunction()

function(fp_torch_version dir out)
  set(version "")
  set(header "${dir}/include/torch/headeronly/version.h")
  if(EXISTS "${header}")
    file(STRINGS "${header}" lines REGEX "^#define TORCH_VERSION_M(AJOR|INOR) ")
    string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" major "${lines}")
    string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" minor "${lines}")
    set(version "${major}.${minor}")
  elseif(EXISTS "${dir}/version.py")
    # Wheels older than 2.11 say their version only in version.py.
    file(STRINGS "${dir}/version.py" line REGEX "^__version__")
    string(REGEX REPLACE "^__version__ *= *['\"]([0-9]+\\.[0-9]+).*" "\\1" version "${line}")
  elseif(EXISTS "${dir}/build-version")
    file(STRINGS "${dir}/build-version" line LIMIT_COUNT 1)
    string(REGEX REPLACE "^([0-9]+\\.[0-9]+).*" "\\1" version "${line}")
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

function(fp_add_torch_libraries target dir)
  cmake_parse_arguments(PARSE_ARGV 2 arg "IMPORTED" "" "")
  set(libs "${dir}/lib/libtorch_cpu.so" "${dir}/lib/libtorch.so")
  foreach(lib IN LISTS libs)
    if(NOT EXISTS "${lib}")
      message(FATAL_ERROR "flash_powder: ${lib} is missing; ${dir} is not a complete torch folder.")
    endif()
  endforeach()
  if(arg_IMPORTED)
    add_library(${target} INTERFACE IMPORTED)
  else()
    add_library(${target} INTERFACE)
  endif()
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES
               "-Wl,--push-state,--no-as-needed" ${libs} "-Wl,--pop-state" ${CMAKE_DL_LIBS})
endfunction()
