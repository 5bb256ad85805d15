#!/usr/bin/env bash
# install.sh — `cmake --install` lays out PREFIX/{bin,include,lib}; a program
# built by PREFIX/bin/mpicc runs without LD_LIBRARY_PATH on PREFIX/lib's
# library; DESTDIR staging writes the final prefix, not the stage, into files.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset CC CXX UZURA_CC UZURA_CXX UZURA_WRAPPER_ACTIVE LD_LIBRARY_PATH

scratch
prefix=$UZ_SCRATCH/prefix
cmake --install "$UZ_BUILD_DIR" --prefix "$prefix" >"$UZ_SCRATCH/install.log" ||
    { cat "$UZ_SCRATCH/install.log"; fail "cmake --install failed"; }

layout=(bin/mpicc bin/mpicxx bin/uzura_info include/mpi.h include/mpi_proto.h
        lib/libmpi_abi.so.1 lib/libmpi_abi.so lib/libmpi.so lib/pkgconfig/mpi.pc)
if [ -x "$UZ_BUILD_DIR/bin/mpiexec" ]; then
    layout+=(bin/mpiexec bin/mpirun)
else
    echo "note: bin/mpiexec, bin/mpirun not checked: the launcher is not built"
fi
for f in "${layout[@]}"; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
done
echo "ok: installed ${layout[*]}"
for f in libmpi_abi.so libmpi.so; do
    expect_eq "lib/$f resolves to" "$(readlink -f "$prefix/lib/libmpi_abi.so.1")" "$(readlink -f "$prefix/lib/$f")"
done

# The installed wrappers name the prefix only, never the build or source tree.
for w in mpicc mpicxx; do
    grep -q -e "$UZ_BUILD_DIR" -e "$UZ_SOURCE_DIR" "$prefix/bin/$w" && fail "bin/$w mentions the build or source tree"
done
expect_eq "installed mpicc -showme:compile" "-I$prefix/include" "$("$prefix/bin/mpicc" -showme:compile)"
expect_eq "installed mpicc -showme:link" \
    "-L$prefix/lib -Wl,-rpath,$prefix/lib -Wl,--enable-new-dtags${UZ_SANITIZE:+ -fsanitize=$UZ_SANITIZE} -lmpi_abi" \
    "$("$prefix/bin/mpicc" -showme:link)"

exe=$UZ_SCRATCH/hello
"$prefix/bin/mpicc" -o "$exe" "$UZ_SOURCE_DIR/examples/hello.c"
expect_eq "RUNPATH" "$prefix/lib" "$(dyn_path RUNPATH "$exe")"
expect_eq "libmpi_abi.so.1 resolves to" "$prefix/lib/libmpi_abi.so.1" "$(resolved_lib libmpi_abi.so.1 "$exe")"
expect_eq "installed hello runs" "Hello from rank 0 of 1 on $(uname -n)" "$(env -u LD_LIBRARY_PATH "$exe")"
if [ -x "$prefix/bin/mpiexec" ]; then
    expect_eq "installed mpiexec -n 2 hello" "$(printf 'Hello from rank %d of 2 on %s\n' 0 "$(uname -n)" 1 "$(uname -n)")" \
        "$(timeout 60 "$prefix/bin/mpiexec" -n 2 "$exe" | sort)"
fi

if command -v g++ >/dev/null; then
    "$prefix/bin/mpicxx" -o "$UZ_SCRATCH/hello_cxx" "$(dirname "$0")/hello.cc"
    expect_eq "installed mpicxx" "C++ rank 0 of 1 on Uzura" "$("$UZ_SCRATCH/hello_cxx")"
fi
if command -v pkg-config >/dev/null; then
    expect_eq "installed mpi.pc --cflags" "-I$prefix/include" \
        "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags mpi | sed 's/ *$//')"
fi
expect_eq "installed uzura_info --version" \
    "Uzura $UZ_VERSION (MPI 5.0, standard ABI 1.0)" "$("$prefix/bin/uzura_info" --version)"

# Staged install (packaging): files land under DESTDIR but name the prefix.
DESTDIR=$UZ_SCRATCH/stage cmake --install "$UZ_BUILD_DIR" --prefix /opt/uzura >"$UZ_SCRATCH/stage.log" ||
    { cat "$UZ_SCRATCH/stage.log"; fail "staged install failed"; }
staged=$UZ_SCRATCH/stage/opt/uzura
[ -x "$staged/bin/mpicc" ] || fail "DESTDIR install has no bin/mpicc"
expect_eq "staged mpicc's libdir" "-L/opt/uzura/lib" "$("$staged/bin/mpicc" -showme:link | cut -d' ' -f1)"
expect_eq "staged mpi.pc's libdir" "libdir=/opt/uzura/lib" "$(grep '^libdir=' "$staged/lib/pkgconfig/mpi.pc")"
