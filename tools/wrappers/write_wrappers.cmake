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
#   UZ_FORTRAN_INCLUDEDIRS  (optional) directories of mpif.h and the .mod
#                    files; when set, mpifort, mpif90 and mpif77 are written too
# Output: UZ_WRAPPERS_WRITTEN, the wrappers written (full paths).

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

set(UZ_WRAPPERS_WRITTEN "")
function(uz_write_wrapper UZ_NAME UZ_LANG UZ_DEFAULT_COMPILER UZ_ENV)
  configure_file(${UZ_TEMPLATE_DIR}/wrapper.sh.in ${UZ_BINDIR}/${UZ_NAME} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                  GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(UZ_WRAPPERS_WRITTEN ${UZ_WRAPPERS_WRITTEN} ${UZ_BINDIR}/${UZ_NAME} PARENT_SCOPE)
endfunction()

set(UZ_LIBS -lmpi_abi)
set(UZ_HEADERS mpi.h)
set(UZ_LIBRARIES libmpi_abi.so.1)
uz_write_wrapper(mpicc C gcc CC)
uz_write_wrapper(mpicxx C++ g++ CXX)

# Fortran: mpif.h and the modules, and the glue library libmpifort.so.0
# before libmpi_abi.so.1.  mpif90 and mpif77 are the same wrapper.
if(UZ_FORTRAN_INCLUDEDIRS)
  set(UZ_CPPFLAGS "")
  foreach(dir IN LISTS UZ_FORTRAN_INCLUDEDIRS)
    uz_sh_quote(q "-I${dir}")
    string(APPEND UZ_CPPFLAGS " ${q}")
  endforeach()
  string(STRIP "${UZ_CPPFLAGS}" UZ_CPPFLAGS)
  set(UZ_LIBS "-lmpifort -lmpi_abi")
  set(UZ_HEADERS "mpif.h and the mpi and mpi_f08 modules")
  set(UZ_LIBRARIES "libmpifort.so.0 and libmpi_abi.so.1")
  foreach(name mpifort mpif90 mpif77)
    uz_write_wrapper(${name} Fortran gfortran FC)
  endforeach()
endif()

configure_file(${UZ_TEMPLATE_DIR}/mpi.pc.in ${UZ_PCDIR}/mpi.pc @ONLY)
