# Locating a PyTorch installation, shared by flash_powder's own build
# (cmake/TorchStable.cmake) and by projects that use an installed
# flash_powder (flash_powderConfig.cmake, installed beside this file).
#
# A "torch folder" is the `torch/` folder of a wheel or an unpacked
# `libtorch/`: it holds include/ and lib/libtorch_cpu.so.
#
# fp_find_torch(<out_dir> <out_source> <out_tried> [PROJECT_PYTHON <python>])
#   Looks, in this order, first match wins:
#     1. FP_TORCH_DIR           CMake variable, else environment variable
#     2. Torch_DIR, Torch_ROOT  CMake or environment variables as for
#                               find_package(Torch): the folder of
#                               TorchConfig.cmake, or the torch folder itself;
#                               then CMAKE_PREFIX_PATH entries that hold one
#                               (torch.utils.cmake_prefix_path)
#     3. PROJECT_PYTHON         when given (flash_powder's own build: its .venv)
#     4. the active Python      $VIRTUAL_ENV, $CONDA_PREFIX, then python3 on PATH,
#                               looked up afresh on every configure, never cached
#   Sets <out_dir> to the torch folder ("" when none), <out_source> to where it
#   came from, and <out_tried> to one line per place looked at without success.
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

function(fp_find_torch out_dir out_source out_tried)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "PROJECT_PYTHON" "")
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

  # 3 and 4: Pythons, each asked where its torch is.
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
    # What a shell runs: PATH only, none of CMake's own search places.
    find_program(path_python NAMES python3 python NO_CACHE NO_DEFAULT_PATH PATHS ENV PATH)
    if(path_python)
      list(APPEND pythons "${path_python}|python3 on PATH")
    else()
      list(APPEND tried "python3 on PATH: there is none")
    endif()
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
        set(found "${dir}")
        set(source "${what}, ${python}")
        break()
      elseif(dir)
        list(APPEND tried "${what}: ${python} imports torch from ${dir}, which has no lib/libtorch_cpu.so")
      else()
        list(APPEND tried "${what}: ${python} has no torch installed")
      endif()
    endforeach()
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
