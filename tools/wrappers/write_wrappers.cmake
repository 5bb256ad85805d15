# write_wrappers.cmake — writes mpicc, mpicxx and mpi.pc for one tree.
#
# Included at configure time for the build tree and at install time (from
# install(CODE)) for the installed tree, so that both come from the same
# templates.  Inputs:
#   UZ_TREE          "build tree" or "installed"; appears in the headers
#   UZ_INCLUDEDIRS   list of directories holding mpi.h and mpi_proto.h
#   UZ_LIBDIR        directory of libmpi_abi.so.1
#   UZ_BINDIR        where to write mpicc and mpicxx
#   UZ_PCDIR         where to write mpi.pc
#   UZ_VERSION, UZ_MPI_VERSION, UZ_EXTRA_LDFLAGS, UZ_TEMPLATE_DIR

# Single-quote a word for bash (the templates splice these into arrays).
function(uz_sh_quote out word)
  string(REPLACE "'" "'\\''" word "${word}")
  set(${out} "'${word}'" PARENT_SCOPE)
endfunction()

set(UZ_CPPFLAGS "")
set(UZ_PC_CFLAGS "")
foreach(dir IN LISTS UZ_INCLUDEDIRS)
  uz_sh_quote(q "-I${dir}")
  string(APPEND UZ_CPPFLAGS " ${q}")
  string(APPEND UZ_PC_CFLAGS " -I${dir}")
endforeach()
string(STRIP "${UZ_CPPFLAGS}" UZ_CPPFLAGS)
string(STRIP "${UZ_PC_CFLAGS}" UZ_PC_CFLAGS)
list(GET UZ_INCLUDEDIRS 0 UZ_PC_INCLUDEDIR)
uz_sh_quote(UZ_LIBDIR_SH "${UZ_LIBDIR}")
if(UZ_EXTRA_LDFLAGS)
  set(UZ_EXTRA_LDFLAGS " ${UZ_EXTRA_LDFLAGS}")    # the templates put no space before it
endif()

foreach(w "mpicc;C;gcc;CC" "mpicxx;C++;g++;CXX")
  list(GET w 0 UZ_NAME)
  list(GET w 1 UZ_LANG)
  list(GET w 2 UZ_DEFAULT_COMPILER)
  list(GET w 3 UZ_ENV)
  configure_file(${UZ_TEMPLATE_DIR}/wrapper.sh.in ${UZ_BINDIR}/${UZ_NAME} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                  GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()

configure_file(${UZ_TEMPLATE_DIR}/mpi.pc.in ${UZ_PCDIR}/mpi.pc @ONLY)
