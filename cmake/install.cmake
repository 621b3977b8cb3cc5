# Install rules and the relocatable CMake package: `cmake --install` puts the public headers, the libraries,
# the CUPTI back-end module, the `gpuperf` executable, the CI scripts and gpuperfConfig.cmake under the
# prefix; `find_package(gpuperf CONFIG)` then gives gpuperf::gpuperf (write benchmarks), gpuperf::main (the
# whole CLI as your executable's main) and gpuperf::builtin_kernels (the built-in suite).
include(CMakePackageConfigHelpers)

set(GPUPERF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpuperf)
set(GPUPERF_INSTALL_MODULEDIR ${CMAKE_INSTALL_LIBDIR}/gpuperf)

# The public headers: what a benchmark is written with. Everything else stays private.
install(FILES include/gpuperf/gpuperf.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuperf)
install(FILES core/errors.hpp core/metrics.hpp core/result.hpp core/stats.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuperf/core)
install(FILES kernels/benchmark.hpp kernels/cuda_check.hpp kernels/device_buffer.hpp kernels/host_data.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuperf/kernels)
# <gpuperf/gpuperf.hpp> through include/, and its own "core/..." and "kernels/..." through include/gpuperf.
foreach(target gpuperf_core gpuperf_kernels)
  target_include_directories(${target} PUBLIC
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/gpuperf>)
endforeach()

set(gpuperf_exported
  gpuperf_core gpuperf_kernels gpuperf_builtin_kernels gpuperf_profiler gpuperf_collector gpuperf_record gpuperf_db
  gpuperf_analysis gpuperf_reports gpuperf_cli gpuperf_main)
foreach(target ${gpuperf_exported})
  string(REPLACE "gpuperf_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
set_target_properties(gpuperf_kernels PROPERTIES EXPORT_NAME gpuperf)

install(TARGETS ${gpuperf_exported} EXPORT gpuperfTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gpuperf RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Loaded at run time (profiler/cupti/range_backend_loader.cpp looks in ../lib/gpuperf from bin/).
install(TARGETS gpuperf_cupti gpuperf_inject LIBRARY DESTINATION ${GPUPERF_INSTALL_MODULEDIR})
# The CI jobs, for a user repository to call with its own bench executable (README, "Use gpuperf in your
# project").
install(PROGRAMS ci/nightly.sh ci/premerge.sh ci/new_regressions.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuperf/ci)

install(EXPORT gpuperfTargets NAMESPACE gpuperf:: DESTINATION ${GPUPERF_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/gpuperfConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gpuperfConfig.cmake
  INSTALL_DESTINATION ${GPUPERF_INSTALL_CMAKEDIR}
  PATH_VARS GPUPERF_INSTALL_MODULEDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gpuperfConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gpuperfConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/gpuperfConfigVersion.cmake
        DESTINATION ${GPUPERF_INSTALL_CMAKEDIR})

# `cpack -G DEB` in the build folder: a Debian package of this install (README, "Use gpuperf in your project").
set(CPACK_PACKAGE_NAME gpuperf)
set(CPACK_PACKAGE_VENDOR "gpuperf")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Performance regressions and profiles of CUDA kernels (CUPTI, SQLite)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpuperf maintainers")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsqlite3-dev, nlohmann-json3-dev, libcli11-dev")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
include(CPack)
