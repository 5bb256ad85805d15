# slurm.cmake — MPI test programs under other launchers (included by
# tests/launch/CMakeLists.txt):
#
#   slurm.<prog>.pmi2.np<N>    srun --mpi=pmi2 -O -n N     (PMI-2 wire client)
#   slurm.<prog>.pmix.np<N>    srun --mpi=pmix -O -n N     (libpmix, PMIx 4 server)
#   slurm.<prog>.prrte.np<N>   Open MPI 5's mpirun         (libpmix, PMIx 5 server)
#   slurm.abort.<mode>.np4     MPI_Abort on one rank ends the job
#   slurm.mpi_none.np2         srun --mpi=none -n 2 fails with the launcher error
#   slurm2.<prog>.<mode>.np<N> srun -N 2 on two nodes (network namespaces)
#
# The srun tests share one private one-node Slurm: slurm.setup starts it
# (FIXTURES_SETUP), slurm.cleanup stops it; a watcher stops it too if ctest
# dies first.  Without root, slurm-wlm or munge, slurm.setup and every srun
# test are skipped (77).  The prrte tests need only the Open MPI peer.
if(NOT TARGET mpi_abi OR NOT TARGET launch_mpi_where)
  return()
endif()

string(MD5 uz_slurm_hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${uz_slurm_hash}" 0 8 uz_slurm_hash)
# Short: munge's and PMIx's sockets live under it (108-byte socket paths).
set(uz_slurm_dir /tmp/uzslurm-${uz_slurm_hash})
set(uz_slurm_fixture ${CMAKE_CURRENT_LIST_DIR}/slurm_fixture.sh)
set(uz_slurm_env "SLURM_FIXTURE_DIR=${uz_slurm_dir};UZ_TEST_HAVE_PMIX=${UZURA_HAVE_PMIX}")

add_test(NAME slurm.setup COMMAND bash ${uz_slurm_fixture} start ${uz_slurm_dir} parent)
set_tests_properties(slurm.setup PROPERTIES
  FIXTURES_SETUP slurm TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS "launch;slurm")
add_test(NAME slurm.cleanup COMMAND bash ${uz_slurm_fixture} stop ${uz_slurm_dir})
set_tests_properties(slurm.cleanup PROPERTIES
  FIXTURES_CLEANUP slurm TIMEOUT 60 LABELS "launch;slurm")

# A representative handful: where each rank is + ring + allreduce (checks
# the job's size), point-to-point, reductions, one-sided.
set(uz_slurm_programs
  "where|$<TARGET_FILE:launch_mpi_where>"
  "pt2pt_wildcard|$<TARGET_FILE:pt2pt_wildcard>"
  "coll_ops|$<TARGET_FILE:coll_ops>"
  "rma_ops|$<TARGET_FILE:rma_ops>")

foreach(entry ${uz_slurm_programs})
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 prog)
  list(GET entry 1 file)
  foreach(mode pmi2 pmix prrte)
    foreach(np 1 2 4 8)
      set(t slurm.${prog}.${mode}.np${np})
      add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_run.sh ${mode} ${np} ${file})
      set_tests_properties(${t} PROPERTIES
        ENVIRONMENT "${uz_slurm_env}" TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "launch;slurm")
      if(mode STREQUAL prrte)
        set_tests_properties(${t} PROPERTIES LABELS "launch;slurm;peer")
      else()
        set_tests_properties(${t} PROPERTIES FIXTURES_REQUIRED slurm)
      endif()
    endforeach()
  endforeach()
endforeach()

# MPI_Abort on rank 1 of 4 ends the whole job under each launcher.
foreach(mode pmi2 pmix prrte)
  add_test(NAME slurm.abort.${mode}.np4
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_run.sh ${mode} 4
                   $<TARGET_FILE:launch_mpi_where> abort 1 3)
  set_tests_properties(slurm.abort.${mode}.np4 PROPERTIES
    ENVIRONMENT "${uz_slurm_env};UZ_EXPECT_ABORT=3" TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS "launch;slurm")
  if(mode STREQUAL prrte)
    set_tests_properties(slurm.abort.${mode}.np4 PROPERTIES LABELS "launch;slurm;peer")
  else()
    set_tests_properties(slurm.abort.${mode}.np4 PROPERTIES FIXTURES_REQUIRED slurm)
  endif()
endforeach()

# MPI_Comm_spawn under each launcher: srun --mpi=pmi2 (Slurm's PMI-2 spawn
# runs srun for the children; SLURM_OVERLAP lets their step share the
# allocation's CPUs with the parents') and PRRTE (PMIx_Spawn) start the
# children; Slurm's PMIx plugin has no spawn: MPI_ERR_SPAWN naming Slurm.
if(TARGET launch_spawn)
  foreach(mode pmi2 prrte)
    foreach(np 1 2)
      set(t slurm.spawn.${mode}.np${np})
      add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_run.sh ${mode} ${np}
                                 $<TARGET_FILE:launch_spawn> ok)
      set_tests_properties(${t} PROPERTIES
        ENVIRONMENT "${uz_slurm_env};SLURM_OVERLAP=1;UZURA_PORT_TIMEOUT=30" TIMEOUT 120
        SKIP_RETURN_CODE 77 LABELS "launch;slurm;dynproc")
      if(mode STREQUAL prrte)
        set_tests_properties(${t} PROPERTIES LABELS "launch;slurm;dynproc;peer")
      else()
        set_tests_properties(${t} PROPERTIES FIXTURES_REQUIRED slurm)
      endif()
    endforeach()
  endforeach()
  add_test(NAME slurm.spawn.pmix.np2
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_run.sh pmix 2 $<TARGET_FILE:launch_spawn> refused Slurm)
  set_tests_properties(slurm.spawn.pmix.np2 PROPERTIES
    ENVIRONMENT "${uz_slurm_env}" FIXTURES_REQUIRED slurm TIMEOUT 120 SKIP_RETURN_CODE 77
    LABELS "launch;slurm;dynproc")
endif()

# Two nodes: network namespaces uzh0 and uzh1 of tests/net/netns.sh, a
# slurmd in each (fixture slurm2, started by slurm2.setup).  Ranks on
# different nodes talk over TCP.
set(uz_slurm2_dir /tmp/uzslurm2-${uz_slurm_hash})
add_test(NAME slurm2.setup COMMAND bash ${uz_slurm_fixture} start ${uz_slurm2_dir} parent 2)
set_tests_properties(slurm2.setup PROPERTIES
  FIXTURES_SETUP slurm2 TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS "launch;slurm;hosts")
add_test(NAME slurm2.cleanup COMMAND bash ${uz_slurm_fixture} stop ${uz_slurm2_dir})
set_tests_properties(slurm2.cleanup PROPERTIES
  FIXTURES_CLEANUP slurm2 TIMEOUT 60 LABELS "launch;slurm;hosts")
foreach(entry ${uz_slurm_programs})
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 prog)
  list(GET entry 1 file)
  foreach(mode pmi2 pmix)
    foreach(np 2 4 8)
      set(t slurm2.${prog}.${mode}.np${np})
      add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_run.sh ${mode} ${np} ${file})
      set_tests_properties(${t} PROPERTIES
        ENVIRONMENT "SLURM_FIXTURE_DIR=${uz_slurm2_dir};UZ_TEST_HAVE_PMIX=${UZURA_HAVE_PMIX};SLURM_RUN_NODES=2"
        FIXTURES_REQUIRED slurm2 TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "launch;slurm;hosts")
    endforeach()
  endforeach()
endforeach()

add_test(NAME slurm.mpi_none.np2
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_run.sh none 2 $<TARGET_FILE:launch_mpi_where>)
set_tests_properties(slurm.mpi_none.np2 PROPERTIES
  ENVIRONMENT "${uz_slurm_env}" FIXTURES_REQUIRED slurm TIMEOUT 120 SKIP_RETURN_CODE 77
  LABELS "launch;slurm")
