# Included by tests/io/CMakeLists.txt: file views, the shared file pointer,
# atomic mode and data representations, written against the MPI standard
# alone and checked with MPICH.  Every program runs at 1 rank up to 8 (four
# per core here); the first three again across network namespaces as hosts
# (tests/net/netns.sh) over tcp, where the ranks share only the file system.
set(UZ_IO_MORE_NP 1 2 3 4 8)
foreach(t io_views io_shared io_atomic io_datarep)
  uz_add_mpi_test(${t} SOURCES ${t}.c NP ${UZ_IO_MORE_NP} TIMEOUT 120 LABELS io)
endforeach()

# Collective accesses take one of two strategies by the length of their
# pieces (UZURA_IO_CB_MIN_RUN): run the collective programs again with
# each forced, so that both stay tested whatever the default picks.
foreach(t io_access io_views)
  uz_add_mpi_test(${t} SOURCES ${t}.c NP 3 4 8 TIMEOUT 120 LABELS io
                  NAME_SUFFIX twophase ENV UZURA_IO_CB_MIN_RUN=1g)
  uz_add_mpi_test(${t} SOURCES ${t}.c NP 4 TIMEOUT 120 LABELS io
                  NAME_SUFFIX inplace ENV UZURA_IO_CB_MIN_RUN=0)
endforeach()

set(uz_io_netns ${PROJECT_SOURCE_DIR}/tests/net/tcp_netns_run.sh)
foreach(t io_views io_shared io_atomic)
  foreach(layout 2x1 2x2)
    string(REPLACE "x" ";" hp ${layout})
    list(GET hp 0 hosts)
    list(GET hp 1 ppn)
    add_test(NAME io.netns.${t}.${layout} COMMAND ${uz_io_netns} ${hosts} ${ppn} ${UZ_MPIEXEC} $<TARGET_FILE:${t}>)
    set_tests_properties(io.netns.${t}.${layout} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
                         LABELS "mpi;io;net;tcp;netns")
  endforeach()
endforeach()

# external32 byte for byte against a peer MPI (skipped without one): the
# writer built with Uzura here, with the peer's mpicc by the script.
add_executable(io_ext32_writer io_ext32_writer.c)
target_link_libraries(io_ext32_writer PRIVATE mpi_abi)
add_test(NAME io.ext32_ref
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/io_ext32_ref.sh $<TARGET_FILE:io_ext32_writer> ${UZ_MPIEXEC})
set_tests_properties(io.ext32_ref PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS io)
