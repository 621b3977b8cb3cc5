# Install rules and the relocatable CMake package: `cmake --install` puts the public headers, the libraries,
# the CUPTI back-end module, the `gpuperf` executable, the CI scripts and gpuperfConfig.cmake under the
# prefix; `find_package(gpuperf CONFIG)` then gives gpuperf::gpuperf (write benchmarks), gpuperf::main (the
# whole CLI as your executable's main) and gpuperf::builtin_kernels (the built-in suite).
include(CMakePackageConfigHelpers)

set(GPUPERF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpuperf)
set(GPUPERF_INSTALL_MODULEDIR ${CMAKE_INSTALL_LIBDIR}/gpuperf)

# The public headers: what a benchmark is written with. Everything else stays private. A consumer gets
# include/ on its path and writes <gpuperf/...> only (as google/benchmark's users write <benchmark/...>), so
# its own core/ or kernels/ cannot collide with gpuperf's. The installed copies therefore include each other
# as <gpuperf/core/...>: generated here from the sources, whose "core/..." includes are rewritten.
set(GPUPERF_PUBLIC_HEADERS
  core/errors.hpp core/metrics.hpp core/result.hpp core/source_lines.hpp core/stats.hpp
  kernels/benchmark.hpp kernels/cuda_check.hpp kernels/device_buffer.hpp kernels/host_data.hpp)
set(gpuperf_public_dir ${PROJECT_BINARY_DIR}/install-include/gpuperf)
foreach(header ${GPUPERF_PUBLIC_HEADERS} include/gpuperf/gpuperf.hpp)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${header})
  file(READ ${PROJECT_SOURCE_DIR}/${header} text)
  string(REGEX REPLACE "#include \"((core|kernels)/[^\"]+)\"" "#include <gpuperf/\\1>" text "${text}")
  # Each <gpuperf/...> a public header includes must itself be installed.
  string(REGEX MATCHALL "\n#include <gpuperf/[^>]+>" included "${text}")  # not the ones in comments
  foreach(line ${included})
    string(REGEX REPLACE "\n#include <gpuperf/([^>]+)>" "\\1" target "${line}")
    if(NOT target IN_LIST GPUPERF_PUBLIC_HEADERS AND NOT target STREQUAL "version.hpp")
      message(FATAL_ERROR "public header ${header} includes ${target}, which is not public: add it to "
                          "GPUPERF_PUBLIC_HEADERS in cmake/install.cmake or include it from a source file instead")
    endif()
  endforeach()
  string(REGEX REPLACE "^include/gpuperf/" "" installed ${header})
  set(out ${gpuperf_public_dir}/${installed})
  set(old "")
  if(EXISTS ${out})
    file(READ ${out} old)
  endif()
  if(NOT old STREQUAL text)  # rewritten only when changed: no rebuild of whatever depends on it
    file(WRITE ${out} "${text}")
  endif()
endforeach()
install(DIRECTORY ${gpuperf_public_dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${GPUPERF_GENERATED_INCLUDE_DIR}/gpuperf/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuperf)
# Consumers get include/ (install(TARGETS ... INCLUDES DESTINATION) below), nothing deeper.

set(gpuperf_exported
  gpuperf_core gpuperf_cubin gpuperf_kernels gpuperf_builtin_kernels gpuperf_profiler gpuperf_collector gpuperf_record
  gpuperf_db gpuperf_escape gpuperf_analysis gpuperf_reports gpuperf_cli gpuperf_main)
foreach(target ${gpuperf_exported})
  string(REPLACE "gpuperf_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
set_target_properties(gpuperf_kernels PROPERTIES EXPORT_NAME gpuperf)

# README's build is `--target gpuperf`; its install must then find everything the rules below copy, so the
# gpuperf target builds them all (gpuperf::main's archive, the CUPTI and injection modules). ci/install_check.py
# checks this from the configured build: every installed target is one gpuperf depends on.
add_dependencies(gpuperf ${gpuperf_exported} gpuperf_cupti gpuperf_inject)
# The check reads CMake's file API (codemodel): this query asks CMake to write it at each configure.
file(WRITE ${PROJECT_BINARY_DIR}/.cmake/api/v1/query/client-gpuperf/query.json
     "{\"requests\": [{\"kind\": \"codemodel\", \"version\": 2}]}\n")

install(TARGETS ${gpuperf_exported} EXPORT gpuperfTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gpuperf RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Loaded at run time (profiler/cupti/range_backend_loader.cpp looks in ../lib/gpuperf from bin/).
install(TARGETS gpuperf_cupti gpuperf_inject LIBRARY DESTINATION ${GPUPERF_INSTALL_MODULEDIR})
# The CI jobs, for a user repository to call with its own bench executable (README, "Use gpuperf in your
# project").
# The recipes that call them (GitHub Actions, GitLab CI, Slurm) go beside them, as README documents them.
install(PROGRAMS ci/nightly.sh ci/premerge.sh ci/new_regressions.py ci/tonight_runs.py ci/slurm-nightly.sbatch
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuperf/ci)
install(FILES ci/github-actions.yml ci/gitlab-ci.yml DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuperf/ci)
# A first hour without a GPU (README, "First hour"): a real nightly history to import, detect and report, and
# the example project that benchmarks its own kernels.
install(FILES examples/sample-history.json examples/CMakeLists.txt examples/saxpy.cu examples/scale_inplace.cu
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuperf/examples)

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
# The install and the package copy what `--target gpuperf` built (it builds every installed file): they do not
# build the whole tree first, which with the tests on is some 34 test programs and minutes of compiling.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_PACKAGE_NAME gpuperf)
set(CPACK_PACKAGE_VENDOR "gpuperf")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Performance regressions and profiles of CUDA kernels (CUPTI, SQLite)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gpuperf maintainers")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# A bench executable links SQLite and libpq (gpuperf::db, both engines); gpuperf itself needs libpq5 to run.
# nlohmann_json and CLI11 are inside gpuperf's libraries.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libsqlite3-dev, libpq-dev")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
include(CPack)
