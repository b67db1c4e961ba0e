# Makes an install prefix the flash_powder/ folder of a wheel, which pip puts
# in site-packages beside the torch package: run at install time (install(CODE),
# CMAKE_INSTALL_PREFIX set) after the files of the flash_powder component.
#
#   site-packages/flash_powder/lib/libflash_powder*.so   RUNPATH $ORIGIN:$ORIGIN/../../torch/lib:
#                                                        each other, and the torch of the same
#                                                        site-packages (as torchvision's libraries do)
#   site-packages/flash_powder/lib/pkgconfig/flash_powder.pc
#                                                        torch_libdir relative to the file, not the
#                                                        build machine's torch
#
# The CMake package needs no change: it finds the torch beside it
# (flash_powderConfig.cmake) and holds no path of the build machine.

set(_fp_wheel_prefix "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
file(GLOB _fp_wheel_libraries "${_fp_wheel_prefix}/lib*/libflash_powder*.so")
if(NOT _fp_wheel_libraries)
  message(FATAL_ERROR "flash_powder: no libflash_powder*.so installed under ${_fp_wheel_prefix}")
endif()
foreach(_fp_library IN LISTS _fp_wheel_libraries)
  file(RPATH_SET FILE "${_fp_library}" NEW_RPATH "\$ORIGIN:\$ORIGIN/../../torch/lib")
endforeach()

file(GLOB _fp_wheel_pc_files "${_fp_wheel_prefix}/lib*/pkgconfig/flash_powder.pc")
foreach(_fp_pc_file IN LISTS _fp_wheel_pc_files)
  file(READ "${_fp_pc_file}" _fp_pc)
  string(REGEX REPLACE "\ntorch_libdir=[^\n]*" "\ntorch_libdir=\${prefix}/../torch/lib" _fp_pc "${_fp_pc}")
  string(REPLACE "torch_libdir\n# is the torch this flash_powder was built with"
                 "torch_libdir\n# is the torch package in the same site-packages" _fp_pc "${_fp_pc}")
  file(WRITE "${_fp_pc_file}" "${_fp_pc}")
endforeach()
message(STATUS "flash_powder: wheel layout (RUNPATH and torch_libdir relative to site-packages) under "
               "${_fp_wheel_prefix}")
