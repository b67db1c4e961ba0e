# `cmake --install <build> --prefix <prefix>` installs:
#   <libdir>/libflash_powder*.so                 the libraries of FP_PUBLIC_LIBRARIES (src/CMakeLists.txt)
#   <includedir>/flash_powder/                   the public headers and the generated config.h
#   <libdir>/cmake/flash_powder/                 the CMake package: find_package(flash_powder)
#   <libdir>/pkgconfig/flash_powder.pc           for builds without CMake
#
# The libraries' RUNPATH is $ORIGIN (they find each other) and names no torch:
# a program loads the libtorch its own RUNPATH or LD_LIBRARY_PATH points at,
# any torch 2.11 or newer (docs/guide/cmake.md).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FP_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/flash_powder")

set(_fp_installed_targets flash_powder_umbrella)
foreach(library IN LISTS FP_PUBLIC_LIBRARIES)
  list(APPEND _fp_installed_targets flash_powder_${library})
  set_target_properties(flash_powder_${library} PROPERTIES INSTALL_RPATH "$ORIGIN")
endforeach()

install(TARGETS ${_fp_installed_targets}
  EXPORT flash_powderTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT flash_powder
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/flash_powder"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT flash_powder
  FILES_MATCHING PATTERN "*.h")
install(FILES "${PROJECT_BINARY_DIR}/generated/flash_powder/config.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/flash_powder" COMPONENT flash_powder)

install(EXPORT flash_powderTargets
  NAMESPACE flash_powder::
  DESTINATION "${FP_INSTALL_CMAKEDIR}" COMPONENT flash_powder)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/flash_powderConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/flash_powderConfig.cmake"
  INSTALL_DESTINATION "${FP_INSTALL_CMAKEDIR}")
# Before 1.0 a minor release may change the API: only the same MAJOR.MINOR matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/flash_powderConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/package/flash_powderConfig.cmake"
  "${PROJECT_BINARY_DIR}/package/flash_powderConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/flash_powderTorch.cmake"
  DESTINATION "${FP_INSTALL_CMAKEDIR}" COMPONENT flash_powder)

# pkg-config: every library of FP_PUBLIC_LIBRARIES, most dependent first.
set(_fp_pc_libs "")
foreach(library IN LISTS FP_PUBLIC_LIBRARIES)
  get_target_property(output_name flash_powder_${library} OUTPUT_NAME)
  if(NOT output_name)
    set(output_name flash_powder_${library})
  endif()
  string(PREPEND _fp_pc_libs "-l${output_name} ")
endforeach()
string(STRIP "${_fp_pc_libs}" FP_PC_LIBS)
file(RELATIVE_PATH FP_PC_PREFIX_FROM_PCFILEDIR
     "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file("${PROJECT_SOURCE_DIR}/cmake/flash_powder.pc.in" "${PROJECT_BINARY_DIR}/package/flash_powder.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/flash_powder.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT flash_powder)

# The flash_powder/ folder of a wheel (pyproject.toml sets FP_WHEEL_LAYOUT):
# paths relative to site-packages, after every file above is in place.
if(FP_WHEEL_LAYOUT)
  install(CODE "include(\"${PROJECT_SOURCE_DIR}/cmake/WheelLayout.cmake\")" COMPONENT flash_powder)
endif()
