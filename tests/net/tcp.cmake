# The tcp transport (src/transport/tcp/, docs/transports-net.md), included
# by tests/net/CMakeLists.txt.  Labels: mpi;net;tcp (and netns for the runs
# across namespaces, which are skipped when namespaces cannot be made).

# The request layer's and the collectives' tests, with the process counts
# they run at elsewhere.
set(tcp_pt2pt_tests pt2pt_modes pt2pt_wildcard pt2pt_probe pt2pt_cancel_truncate pt2pt_persistent
    pt2pt_completion pt2pt_threads pt2pt_threads_mprobe pt2pt_status_error pt2pt_errors)
set(tcp_coll_tests coll_check coll_ops coll_nb coll_inter coll_neighbor coll_persistent_order)

function(tcp_add_test name timeout labels env)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} SKIP_RETURN_CODE 77 LABELS "mpi;net;tcp;${labels}"
                       ENVIRONMENT "${env}")
endfunction()

# 1. One host, shared memory off: every peer is reached over tcp, through
#    loopback.
foreach(t ${tcp_pt2pt_tests} ${tcp_coll_tests})
  if(NOT TARGET ${t})
    continue()
  endif()
  foreach(np 2 3 4 8)
    add_test(NAME tcp.loop.${t}.np${np} COMMAND ${UZ_MPIEXEC} -n ${np} --timeout 600 $<TARGET_FILE:${t}>)
    tcp_add_test(tcp.loop.${t}.np${np} 600 "" "UZURA_SHM=0;UZURA_NET=tcp")
  endforeach()
endforeach()

# 2. Network namespaces as hosts: 2 and 4 hosts, 1 and 2 ranks on each.
foreach(t ${tcp_pt2pt_tests} ${tcp_coll_tests})
  if(NOT TARGET ${t})
    continue()
  endif()
  foreach(layout 2x1 2x2 4x1 4x2)
    string(REPLACE "x" ";" hp ${layout})
    list(GET hp 0 hosts)
    list(GET hp 1 ppn)
    add_test(NAME tcp.netns.${t}.${layout}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_netns_run.sh ${hosts} ${ppn} ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
    tcp_add_test(tcp.netns.${t}.${layout} 600 netns "")
  endforeach()
endforeach()

# 3. The transport's own tests.
uz_add_mpi_test(tcp_finalize_drain SOURCES tcp_finalize_drain.c NP 2 ARGS eager
                ENV "UZURA_SHM=0;UZURA_TCP_SNDBUF=64k;UZURA_TCP_RCVBUF=64k" NAME_SUFFIX eager LABELS "net;tcp")
uz_add_mpi_test(tcp_finalize_drain SOURCES tcp_finalize_drain.c NP 2 ARGS rndv
                ENV "UZURA_SHM=0;UZURA_TCP_SNDBUF=64k;UZURA_TCP_RCVBUF=64k" NAME_SUFFIX rndv LABELS "net;tcp")
uz_add_mpi_test(tcp_finalize_drain SOURCES tcp_finalize_drain.c NP 2 3 ARGS first
                ENV "UZURA_SHM=0" NAME_SUFFIX first LABELS "net;tcp")
add_test(NAME tcp.netns.tcp_finalize_drain.first.2x1
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:tcp_finalize_drain> first)
tcp_add_test(tcp.netns.tcp_finalize_drain.first.2x1 120 netns "")
add_test(NAME tcp.netns.tcp_finalize_drain.rndv.2x1
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:tcp_finalize_drain> rndv)
tcp_add_test(tcp.netns.tcp_finalize_drain.rndv.2x1 120 netns "UZURA_TCP_SNDBUF=64k;UZURA_TCP_RCVBUF=64k")

# Strangers without the job key at every rank's port change nothing.
add_executable(tcp_stranger tcp_stranger.c)
target_link_libraries(tcp_stranger PRIVATE mpi_abi)
target_include_directories(tcp_stranger PRIVATE ${PROJECT_SOURCE_DIR}/tests/include)
add_test(NAME tcp.stranger.loop.np3
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_stranger.sh ${UZ_MPIEXEC} $<TARGET_FILE:tcp_stranger> 3)
tcp_add_test(tcp.stranger.loop.np3 120 "" "")
add_test(NAME tcp.stranger.netns.2x2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_stranger.sh ${UZ_MPIEXEC} $<TARGET_FILE:tcp_stranger> 4 netns 2)
tcp_add_test(tcp.stranger.netns.2x2 120 netns "")

# A peer whose connections vanish: errors, not a hang; the job ends cleanly.
add_executable(tcp_peer_gone tcp_peer_gone.c)
target_link_libraries(tcp_peer_gone PRIVATE mpi_abi)
target_include_directories(tcp_peer_gone PRIVATE ${PROJECT_SOURCE_DIR}/tests/include)
add_test(NAME tcp.peer_gone.loop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_peer_gone.sh ${UZ_MPIEXEC} $<TARGET_FILE:tcp_peer_gone>)
tcp_add_test(tcp.peer_gone.loop 60 "" "")
add_test(NAME tcp.peer_gone.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_peer_gone.sh ${UZ_MPIEXEC} $<TARGET_FILE:tcp_peer_gone> netns)
tcp_add_test(tcp.peer_gone.netns 60 netns "")
set_tests_properties(tcp.peer_gone.loop tcp.peer_gone.netns PROPERTIES RESOURCE_LOCK tcp_peer_gone)

# Merged runs of partitions across hosts (tests/mpi/part_merge.c).
if(TARGET part_merge)
  add_test(NAME tcp.netns.part_merge.2x1
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tcp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:part_merge>)
  tcp_add_test(tcp.netns.part_merge.2x1 600 netns "")
endif()
