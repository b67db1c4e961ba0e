# Warning and sanitizer flags, and unity builds (FP_UNITY_BUILD), for flash_powder's own targets.
#
# fp_apply_compile_options(<dir>) gives them to every target defined in <dir>
# and its subdirectories, once all are defined, so a new target (a layer, a
# test, an example) gets them without a line of its own. They are set on the
# targets, privately: a project that adds flash_powder with add_subdirectory
# keeps its own flags, and nothing of them is exported.

set(FP_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
# Every UndefinedBehaviorSanitizer finding aborts the program (and fails its
# test) instead of printing a line and going on. LeakSanitizer comes with
# AddressSanitizer; tools/sanitizers/ has its suppressions and options.
set(FP_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)

function(_fp_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _fp_targets_below("${subdir}" below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# The tests are compiled without optimisation (the library keeps the build
# type's): their time goes into flash_powder and libtorch, while test code at
# -O1 took twice as long to compile as at -O0, with GCC and with clang's
# sanitizers: most of the tests' build. Under the sanitizers the examples too
# (elsewhere they stay as users build them). A target with the property
# FP_KEEP_OPTIMISATION (the tests' support library: it reads the truth
# cache, tens of megabytes, in every test process) keeps the build type's.
function(_fp_unoptimised target)
  get_target_property(keep ${target} FP_KEEP_OPTIMISATION)
  if(keep)
    return()
  endif()
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(folders tests)
  if(FP_SANITIZE)
    list(APPEND folders examples)
  endif()
  foreach(folder IN LISTS folders)
    string(FIND "${source_dir}/" "${PROJECT_SOURCE_DIR}/${folder}/" at)
    if(at EQUAL 0)
      target_compile_options(${target} PRIVATE -O0)
    endif()
  endforeach()
endfunction()

function(fp_apply_compile_options dir)
  _fp_targets_below("${dir}" targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      continue()
    endif()
    target_compile_options(${target} PRIVATE ${FP_WARNING_FLAGS})
    set_target_properties(${target} PROPERTIES UNITY_BUILD ${FP_UNITY_BUILD})
    if(FP_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
    _fp_unoptimised(${target})
    if(FP_SANITIZE)
      target_compile_options(${target} PRIVATE ${FP_SANITIZER_FLAGS})
      if(NOT type STREQUAL "OBJECT_LIBRARY" AND NOT type STREQUAL "STATIC_LIBRARY")
        target_link_options(${target} PRIVATE -fsanitize=address,undefined)
      endif()
    endif()
  endforeach()
endfunction()
