#!/usr/bin/env bash
# symbols.sh — every procedure the Fortran interfaces declare has an entry
# point in libmpifort.so: the external names of `use mpi` (mpi_send_ ...,
# and pmpi_send_), the binding labels of `use mpi_f08` and `pmpi_f08`
# (MPI_Send_f08ts ...), the external procedures of mpi_f08 that take
# procedure arguments (mpi_op_create_f08_), and the predefined callbacks.
set -euo pipefail
source "$UZ_SOURCE_DIR/tests/wrappers/testlib.sh"
gen=$UZ_SOURCE_DIR/src/binding/fortran/gen
lib=$UZ_BUILD_DIR/lib/libmpifort.so
[ -f "$lib" ] || skip "libmpifort was not built"

defined=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
# Statements of a generated module, continuation lines joined.
statements() { sed -e ':a' -e '/&$/N; s/&\n *//; ta' "$@"; }

want=$(
    # use mpi: the interface bodies without a binding label are external
    # procedures (gfortran: lower case + _); MPI_ ones also have a PMPI_ twin.
    statements "$gen/mpi.f90" | grep -E '^ *(SUBROUTINE|.*FUNCTION) [A-Z0-9_]+\(' | grep -v BIND |
        sed -E 's/^ *(SUBROUTINE|.*FUNCTION) ([A-Z0-9_]+)\(.*/\2/' |
        while read -r name; do
            echo "$name"
            case $name in *_FN | *_FN_*) ;; *) echo "P$name" ;; esac
        done | tr 'A-Z' 'a-z' | sed 's/$/_/'
    # mpi_f08 and pmpi_f08: binding labels, and external procedures without one
    statements "$gen/mpi_f08.f90" "$gen/pmpi_f08.f90" | grep -o "NAME='[A-Za-z0-9_]*'" |
        sed "s/NAME='\(.*\)'/\1/"
    statements "$gen/mpi_f08.f90" "$gen/pmpi_f08.f90" | grep -E '^ *SUBROUTINE P?MPI_[A-Za-z0-9_]*\(' |
        grep -v BIND | sed -E 's/^ *SUBROUTINE ([A-Za-z0-9_]+)\(.*/\1/' | tr 'A-Z' 'a-z' | sed 's/$/_/' |
        grep -v -E '_function(_c)?_$'       # abstract interfaces name no procedure
)
missing=$(comm -23 <(echo "$want" | sort -u) <(echo "$defined"))
[ -z "$missing" ] || fail "declared but not in libmpifort: $(echo $missing | head -c 2000)"
echo "ok: $(echo "$want" | sort -u | wc -l) entry points declared by the interfaces are defined"
