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
