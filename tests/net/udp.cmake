# The udp transport (src/transport/udp/, docs/transports-net.md), included
# by tests/net/CMakeLists.txt.  Labels: mpi;net;udp (and netns for the runs
# across namespaces, which are skipped when namespaces cannot be made).
#
# UZURA_UDP_FAULTS makes the transport drop, duplicate and reorder its own
# datagrams (the kernel here has no netem); the runs marked "faults" use
# the rates the issue asks for: 10% loss, 5% duplication, 20% reordering.

set(udp_faults "UZURA_UDP_FAULTS=loss=0.1,dup=0.05,reorder=0.2,seed=1")
set(udp_pt2pt_tests pt2pt_modes pt2pt_wildcard pt2pt_probe pt2pt_cancel_truncate pt2pt_persistent
    pt2pt_completion pt2pt_threads pt2pt_threads_mprobe pt2pt_status_error pt2pt_errors)
set(udp_coll_tests coll_check coll_ops coll_nb coll_inter coll_neighbor coll_persistent_order)

function(udp_add_test name timeout labels env)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} SKIP_RETURN_CODE 77 LABELS "mpi;net;udp;${labels}"
                       ENVIRONMENT "${env}")
endfunction()

# 1. One host, shared memory off: every peer is reached over udp through
#    loopback — clean, and with faults (also with 1500-byte datagrams, so
#    records are cut into many segments).
foreach(t ${udp_pt2pt_tests} ${udp_coll_tests})
  if(NOT TARGET ${t})
    continue()
  endif()
  foreach(np 2 3 4 8)
    add_test(NAME udp.loop.${t}.np${np} COMMAND ${UZ_MPIEXEC} -n ${np} --timeout 600 $<TARGET_FILE:${t}>)
    udp_add_test(udp.loop.${t}.np${np} 600 "" "UZURA_SHM=0;UZURA_NET=udp")
  endforeach()
  foreach(np 2 4)
    add_test(NAME udp.faults.${t}.np${np} COMMAND ${UZ_MPIEXEC} -n ${np} --timeout 600 $<TARGET_FILE:${t}>)
    udp_add_test(udp.faults.${t}.np${np} 600 faults "UZURA_SHM=0;UZURA_NET=udp;${udp_faults}")
  endforeach()
endforeach()
foreach(t pt2pt_modes coll_check)
  if(TARGET ${t})
    add_test(NAME udp.faults.mtu1500.${t}.np3 COMMAND ${UZ_MPIEXEC} -n 3 --timeout 600 $<TARGET_FILE:${t}>)
    udp_add_test(udp.faults.mtu1500.${t}.np3 600 faults
                 "UZURA_SHM=0;UZURA_NET=udp;UZURA_UDP_MTU=1500;UZURA_UDP_FAULTS=loss=0.1,dup=0.05,reorder=0.2,seed=7")
  endif()
endforeach()

# 2. Network namespaces as hosts: 2 and 4 hosts, 1 and 2 ranks on each.
foreach(t ${udp_pt2pt_tests} ${udp_coll_tests})
  if(NOT TARGET ${t})
    continue()
  endif()
  foreach(layout 2x1 2x2 4x1 4x2)
    string(REPLACE "x" ";" hp ${layout})
    list(GET hp 0 hosts)
    list(GET hp 1 ppn)
    add_test(NAME udp.netns.${t}.${layout}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh ${hosts} ${ppn} ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
    udp_add_test(udp.netns.${t}.${layout} 600 netns "")
  endforeach()
endforeach()
foreach(t pt2pt_modes coll_check)
  if(TARGET ${t})
    add_test(NAME udp.netns.faults.${t}.2x2
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh 2 2 ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
    udp_add_test(udp.netns.faults.${t}.2x2 600 "netns;faults" "${udp_faults}")
  endif()
endforeach()

# 3. The transport's own tests.
# The datagram MAC against SipHash-2-4's reference vectors.
uz_add_unit_test(udp_auth_test SOURCES udp_auth_test.c ${PROJECT_SOURCE_DIR}/src/transport/udp/udp_auth.c)
target_include_directories(udp_auth_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
set_tests_properties(udp_auth_test PROPERTIES LABELS "unit;udp")

# Volume under faults: every message once, in order, checksummed.  `make
# check` moves 64 MiB per direction; the full GiB is the long test
# (-DUZURA_LONG_TESTS=ON, or run it by hand: docs/transports-net.md).
add_executable(udp_stress udp_stress.c)
target_link_libraries(udp_stress PRIVATE mpi_abi)
add_test(NAME udp.stress.faults.np2 COMMAND ${UZ_MPIEXEC} -n 2 --timeout 600 $<TARGET_FILE:udp_stress> 64)
udp_add_test(udp.stress.faults.np2 600 faults "UZURA_SHM=0;UZURA_NET=udp;${udp_faults}")
add_test(NAME udp.stress.faults.mtu1500.np4 COMMAND ${UZ_MPIEXEC} -n 4 --timeout 600 $<TARGET_FILE:udp_stress> 16)
udp_add_test(udp.stress.faults.mtu1500.np4 600 faults
             "UZURA_SHM=0;UZURA_NET=udp;UZURA_UDP_MTU=1500;${udp_faults}")
# The MAC over the payload too, on segments copied and sent in place.
add_test(NAME udp.stress.faults.macpayload.np2 COMMAND ${UZ_MPIEXEC} -n 2 --timeout 600 $<TARGET_FILE:udp_stress> 16)
udp_add_test(udp.stress.faults.macpayload.np2 600 faults
             "UZURA_SHM=0;UZURA_NET=udp;UZURA_UDP_MTU=1500;UZURA_UDP_MAC_PAYLOAD=1;${udp_faults}")
add_test(NAME udp.netns.stress.faults.2x1
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:udp_stress> 32)
udp_add_test(udp.netns.stress.faults.2x1 600 "netns;faults" "${udp_faults}")
option(UZURA_LONG_TESTS "Register the long tests (1 GiB through the faulty udp transport)" OFF)
if(UZURA_LONG_TESTS)
  add_test(NAME udp.stress.faults.1GiB COMMAND ${UZ_MPIEXEC} -n 2 --timeout 3000 $<TARGET_FILE:udp_stress> 1024)
  udp_add_test(udp.stress.faults.1GiB 3000 "faults;long" "UZURA_SHM=0;UZURA_NET=udp;${udp_faults}")
endif()

# STOP/GO: a slow receiver behind a small socket buffer.
add_test(NAME udp.stopgo.loop COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_stopgo.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_stress>)
udp_add_test(udp.stopgo.loop 180 "" "")
add_test(NAME udp.stopgo.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_stopgo.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_stress> netns)
udp_add_test(udp.stopgo.netns 180 netns "")

# A peer killed mid-exchange: an error within the timeout, not a hang.
add_executable(udp_killed udp_killed.c)
target_link_libraries(udp_killed PRIVATE mpi_abi)
add_test(NAME udp.killed.loop COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_killed.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_killed>)
udp_add_test(udp.killed.loop 120 "" "")
add_test(NAME udp.killed.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_killed.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_killed> netns)
udp_add_test(udp.killed.netns 120 netns "")
add_test(NAME udp.killed.icmp.loop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_killed.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_killed> loop icmp)
udp_add_test(udp.killed.icmp.loop 120 "" "")
add_test(NAME udp.killed.icmp.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_killed.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_killed> netns icmp)
udp_add_test(udp.killed.icmp.netns 120 netns "")
# What a killed peer sent just before it died is delivered, though the
# ICMP answer that reveals its death is reported ahead of it.
add_executable(udp_last_words udp_last_words.c)
target_link_libraries(udp_last_words PRIVATE mpi_abi)
add_test(NAME udp.last_words.loop COMMAND ${UZ_MPIEXEC} -n 2 --timeout 60 $<TARGET_FILE:udp_last_words>)
udp_add_test(udp.last_words.loop 90 "" "UZURA_SHM=0;UZURA_NET=udp;UZURA_UDP_PEER_TIMEOUT=600")
add_test(NAME udp.last_words.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:udp_last_words>)
udp_add_test(udp.last_words.netns 90 netns "UZURA_UDP_PEER_TIMEOUT=600;UZ_TEST_TIMEOUT=60")
# mpiexec reports rank 1's parent, killed to end the job: the verdict is
# what rank 0 prints.
set_tests_properties(udp.last_words.loop udp.last_words.netns PROPERTIES
                     PASS_REGULAR_EXPRESSION "udp_last_words: PASS" SKIP_REGULAR_EXPRESSION "SKIPPED")
# ... and in the middle of a large message sent straight from the user's
# buffer (held by the transport until acknowledged).
add_test(NAME udp.killed.midway.loop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_killed.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_killed> loop midway)
udp_add_test(udp.killed.midway.loop 120 "" "")
add_test(NAME udp.killed.midway.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_killed.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_killed> netns midway)
udp_add_test(udp.killed.midway.netns 120 netns "")

# A large send completes while its receiver is away from MPI, and its
# buffer may be reused at once (also with faults: resent from a copy).
add_executable(udp_send_done udp_send_done.c)
target_link_libraries(udp_send_done PRIVATE mpi_abi)
add_test(NAME udp.send_done.loop COMMAND ${UZ_MPIEXEC} -n 2 --timeout 120 $<TARGET_FILE:udp_send_done> 2)
udp_add_test(udp.send_done.loop 120 "" "UZURA_SHM=0;UZURA_NET=udp")
# Under 10% loss a 3 MiB send itself takes 0.2-0.4 s (go-back-N), over
# 1 s in a sanitizer build next to other tests: a longer pause keeps
# "completed while the receiver was away" apart from "slow transfer".
add_test(NAME udp.send_done.faults.loop COMMAND ${UZ_MPIEXEC} -n 2 --timeout 120 $<TARGET_FILE:udp_send_done> 4)
udp_add_test(udp.send_done.faults.loop 120 faults "UZURA_SHM=0;UZURA_NET=udp;UZURA_UDP_MTU=1500;${udp_faults}")
add_test(NAME udp.send_done.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:udp_send_done> 2)
udp_add_test(udp.send_done.netns 120 netns "")

# Payloads that look like headers: the sender keeps those headers first
# (others go last, udp_wire.h) and the receiver misreads nothing.
add_executable(udp_lookalike udp_lookalike.c)
target_link_libraries(udp_lookalike PRIVATE mpi_abi)
add_test(NAME udp.lookalike.loop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_lookalike.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_lookalike>)
udp_add_test(udp.lookalike.loop 120 "" "")
add_test(NAME udp.lookalike.faults.loop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_lookalike.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_lookalike>)
udp_add_test(udp.lookalike.faults.loop 120 faults "${udp_faults}")
add_test(NAME udp.lookalike.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_lookalike.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_lookalike> netns)
udp_add_test(udp.lookalike.netns 120 netns "")

# Strangers: garbage and wrong-key datagrams at a rank's port change nothing.
add_executable(udp_stranger udp_stranger.c)
target_link_libraries(udp_stranger PRIVATE mpi_abi)
add_test(NAME udp.stranger.loop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_stranger.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_stranger>)
udp_add_test(udp.stranger.loop 120 "" "")
add_test(NAME udp.stranger.netns
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_stranger.sh ${UZ_MPIEXEC} $<TARGET_FILE:udp_stranger> netns)
udp_add_test(udp.stranger.netns 120 netns "")

# Raw Ethernet frames (EtherType 0x88B5) where packet sockets are allowed.
foreach(t pt2pt_modes coll_check)
  if(TARGET ${t})
    add_test(NAME udp.ether.netns.${t}.2x1
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh 2 1 ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
    udp_add_test(udp.ether.netns.${t}.2x1 600 "netns;ether" "UZURA_UDP_ETHER=1")
  endif()
endforeach()

# Segment by segment (no UDP_SEGMENT/UDP_GRO offload), as on kernels
# without it: the plain datagram path across hosts.
foreach(t pt2pt_modes coll_check)
  if(TARGET ${t})
    add_test(NAME udp.nogso.netns.${t}.2x2
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/udp_netns_run.sh 2 2 ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
    udp_add_test(udp.nogso.netns.${t}.2x2 600 "netns" "UZURA_UDP_GSO=0")
  endif()
endforeach()
