# The ofi transport (src/transport/ofi/, docs/transports-net.md), included
# by tests/net/CMakeLists.txt.  Labels: mpi;net;ofi (and netns for the runs
# across namespaces).  Every run goes through ofi_run.sh, which skips (77)
# when this build has no ofi, libfabric or the provider is missing, or
# namespaces cannot be made.
#
# The request layer's, the collectives' and the one-sided tests over the
# two providers every libfabric has, tcp;ofi_rxm (connections, rendezvous
# inside the provider) and udp;ofi_rxd (reliable datagrams over UDP), across
# namespaces as 2 hosts x 1 and 2 ranks; a few also on one host at more
# ranks than cores.  pt2pt_large and net_eager cover eager and rendezvous
# sizes (rendezvous pulls by fi_read) with every byte checked.

set(ofi_pt2pt_tests pt2pt_modes pt2pt_wildcard pt2pt_probe pt2pt_cancel_truncate pt2pt_persistent
    pt2pt_completion pt2pt_threads pt2pt_threads_mprobe pt2pt_status_error pt2pt_errors pt2pt_large)
set(ofi_coll_tests coll_check coll_ops coll_nb coll_inter coll_neighbor coll_persistent_order)
set(ofi_rma_tests rma_ops rma_types rma_transpose rma_atomicity)
set(ofi_providers tcp+ofi_rxm udp+ofi_rxd)      # ofi_run.sh turns + into ;
if(UZ_HAVE_LIBFABRIC)
  set(ofi_built 1)
else()
  set(ofi_built 0)
endif()

function(ofi_add_test name labels)
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "mpi;net;ofi;${labels}"
                       ENVIRONMENT "UZ_OFI_BUILT=${ofi_built}")
endfunction()

foreach(prov ${ofi_providers})
  string(REGEX REPLACE "[+].*" "" short "${prov}")        # tcp, udp
  foreach(t ${ofi_pt2pt_tests} ${ofi_coll_tests} ${ofi_rma_tests})
    if(NOT TARGET ${t})
      continue()
    endif()
    foreach(layout 2x1 2x2)
      string(REPLACE "x" ";" hp ${layout})
      list(GET hp 0 hosts)
      list(GET hp 1 ppn)
      add_test(NAME ofi.${short}.netns.${t}.${layout}
               COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_run.sh ${prov} netns ${hosts} ${ppn} ${UZ_MPIEXEC}
                       $<TARGET_FILE:${t}>)
      ofi_add_test(ofi.${short}.netns.${t}.${layout} netns)
    endforeach()
  endforeach()
  # One host, shared memory off, more ranks than cores.
  foreach(t pt2pt_modes pt2pt_large coll_check rma_ops)
    if(TARGET ${t})
      foreach(np 4 8)
        add_test(NAME ofi.${short}.loop.${t}.np${np}
                 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_run.sh ${prov} loop ${np} ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
        ofi_add_test(ofi.${short}.loop.${t}.np${np} "")
      endforeach()
    endif()
  endforeach()
endforeach()

# Which messages go eagerly, and eager/rendezvous sizes with every byte
# checked (net_eager.sh, as for tcp and udp).
# (net_eager is defined by tests/net/CMakeLists.txt after this file.)
foreach(prov ${ofi_providers})
  string(REGEX REPLACE "[+].*" "" short "${prov}")
  add_test(NAME ofi.${short}.eager
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_run.sh ${prov} env ${CMAKE_CURRENT_SOURCE_DIR}/net_eager.sh
                   ${UZ_MPIEXEC} $<TARGET_FILE:net_eager> ofi)
  ofi_add_test(ofi.${short}.eager "")
endforeach()

# A rank killed mid-exchange: the job ends at once naming it (both
# providers, 2x1 and 2x2); and when mpiexec does not end the job (the
# killed process is a forked copy of rank 1) the survivor's sends fail with
# MPI_ERR_PROC_ABORTED (UZURA_OFI_PEER_TIMEOUT=3 in ofi_killed.sh).
add_executable(ofi_killed ofi_killed.c)
target_link_libraries(ofi_killed PRIVATE mpi_abi)
foreach(prov ${ofi_providers})
  string(REGEX REPLACE "[+].*" "" short "${prov}")
  foreach(layout 2x1 2x2)
    string(REPLACE "x" ";" hp ${layout})
    add_test(NAME ofi.${short}.killed.${layout}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_killed.sh ${prov} ${UZ_MPIEXEC} $<TARGET_FILE:ofi_killed> die ${hp})
    ofi_add_test(ofi.${short}.killed.${layout} netns)
  endforeach()
  add_test(NAME ofi.${short}.killed.survivor
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ofi_killed.sh ${prov} ${UZ_MPIEXEC} $<TARGET_FILE:ofi_killed> survivor 2 1)
  ofi_add_test(ofi.${short}.killed.survivor netns)
endforeach()
