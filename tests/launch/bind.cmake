# Binding ranks to CPUs (docs/binding.md): bind_test.sh, one ctest per case.
# bind_cpus is a plain program (no MPI) that prints its own CPUs; bind_hw
# an MPI program that prints its hardware splits.
add_executable(bind_cpus ${CMAKE_CURRENT_SOURCE_DIR}/bind_cpus.c)
set(bind_env "MPIEXEC=$<TARGET_FILE:mpiexec>;BIND_CPUS=$<TARGET_FILE:bind_cpus>")
set(bind_cases report.default report.core report.hwthread report.socket report.numa report.none
               sysfs taskset environment options proxy slurm synthetic missing_hwloc)
if(TARGET mpi_abi)
  add_executable(bind_hw ${CMAKE_CURRENT_SOURCE_DIR}/bind_hw.c)
  target_link_libraries(bind_hw PRIVATE mpi_abi)
  list(APPEND bind_env "BIND_HW=$<TARGET_FILE:bind_hw>")
  list(APPEND bind_cases hw.np1 hw.np2 hw.np4)
endif()
foreach(c ${bind_cases})
  add_test(NAME launch.bind.${c}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bind_test.sh ${c})
  set_tests_properties(launch.bind.${c} PROPERTIES
    ENVIRONMENT "${bind_env}" TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS "launch;bind")
endforeach()

# The placement rules on a made-up 2x2x2 machine (needs hwloc at run time).
add_executable(bind_plan ${CMAKE_CURRENT_SOURCE_DIR}/bind_plan.c
  ${PROJECT_SOURCE_DIR}/tools/mpiexec/binding.c ${PROJECT_SOURCE_DIR}/src/base/hwtopo.c
  ${PROJECT_SOURCE_DIR}/src/base/hwtopo_hwloc.c ${PROJECT_SOURCE_DIR}/src/base/hwtopo_sysfs.c)
target_include_directories(bind_plan PRIVATE ${PROJECT_SOURCE_DIR}/tools/mpiexec ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(bind_plan PRIVATE _GNU_SOURCE)
target_link_libraries(bind_plan PRIVATE ${CMAKE_DL_LIBS})
if(UZ_HAVE_HWLOC_H)
  target_compile_definitions(bind_plan PRIVATE UZ_HAVE_HWLOC)
endif()
add_test(NAME launch.bind.plan COMMAND bind_plan)
set_tests_properties(launch.bind.plan PROPERTIES TIMEOUT 30 SKIP_RETURN_CODE 77 LABELS "launch;bind")
