# Helpers to register tests.
#
# uz_add_mpi_test(<name> SOURCES <files...> NP <n...> [ENV <VAR=VAL...>]
#                 [TIMEOUT <seconds>] [ARGS <args...>] [LABELS <labels...>]
#                 [LIBS <libs...>] [NAME_SUFFIX <suffix>])
#   Builds <name> against the library and adds one ctest per process count,
#   "<name>.np<N>" (or "<name>.<suffix>.np<N>", to run the same program again
#   under other settings), each run as `mpiexec -n N --timeout T <name> args`.
#   Every test is registered at several counts, including more ranks than the
#   machine has cores, because that is how most runs here happen.
#
# uz_add_unit_test(<name> SOURCES <files...> [LIBS <libs...>])
#   A plain program (no mpiexec) that exits 0 on success.

set(UZ_MPIEXEC ${CMAKE_BINARY_DIR}/bin/mpiexec)

function(uz_add_mpi_test name)
  cmake_parse_arguments(T "" "TIMEOUT;NAME_SUFFIX" "SOURCES;NP;ENV;ARGS;LABELS;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(NOT TARGET ${name})
    add_executable(${name} ${T_SOURCES})
    target_link_libraries(${name} PRIVATE mpi_abi ${T_LIBS})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/include)
  endif()
  set(tname ${name})
  if(T_NAME_SUFFIX)
    set(tname ${name}.${T_NAME_SUFFIX})
  endif()
  foreach(np ${T_NP})
    set(test ${tname}.np${np})
    add_test(NAME ${test}
             COMMAND ${UZ_MPIEXEC} -n ${np} --timeout ${T_TIMEOUT} $<TARGET_FILE:${name}> ${T_ARGS})
    set_tests_properties(${test} PROPERTIES
        TIMEOUT ${T_TIMEOUT}
        SKIP_RETURN_CODE 77
        LABELS "mpi;${T_LABELS}")
    if(T_ENV)
      set_tests_properties(${test} PROPERTIES ENVIRONMENT "${T_ENV}")
    endif()
  endforeach()
endfunction()

function(uz_add_unit_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;ARGS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/include)
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} SKIP_RETURN_CODE 77 LABELS unit)
endfunction()
