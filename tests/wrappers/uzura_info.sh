#!/usr/bin/env bash
# uzura_info.sh — build/bin/uzura_info: `version`, `params`, `choices` (the words of enum
# tunables), `unknown_env`, `transports` (the library's registration table), `usage` and
# `prefix` (installed copies name the prefix they are installed at) cases.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
info=$UZ_BUILD_DIR/bin/uzura_info
# A clean environment: no UZURA_* variables but the ones a case sets.
for v in $(compgen -e | grep '^UZURA_' || true); do unset "$v"; done

case ${1:?usage: uzura_info.sh version|params|choices|unknown_env|transports|usage|prefix} in
version)
    expect_eq "--version" "Uzura $UZ_VERSION (MPI 5.0, standard ABI 1.0)" "$("$info" --version)"
    expect_eq "first line of the full report" "Uzura $UZ_VERSION (MPI 5.0, standard ABI 1.0)" \
        "$("$info" | head -n1)"
    ;;
params)
    out=$("$info" --params)
    expect_eq "UZURA_VERBOSE row" "  UZURA_VERBOSE                  int     default 0" \
        "$(grep '^  UZURA_VERBOSE ' <<<"$out")"
    expect_eq "UZURA_VERBOSE help" \
        "      Print what the library chooses at start-up (transports, fallbacks): 0 silent, 1 rank 0, 2 every rank" \
        "$(grep -A1 '^  UZURA_VERBOSE ' <<<"$out" | tail -n1)"
    expect_eq "a value set in the environment is shown" "  UZURA_VERBOSE                  int     default 0   (set: 2)" \
        "$(UZURA_VERBOSE=2 "$info" --params | grep '^  UZURA_VERBOSE ')"
    expect_eq "a bad value is reported" 'warning: UZURA_VERBOSE="loud" is not a valid int' \
        "$(UZURA_VERBOSE=loud "$info" --params | tail -n1)"
    expect_eq "the full report lists the tunables too" "$out" \
        "$("$info" | sed -n '/^Tunables/,$p')"
    ;;
choices)
    # Every word each collective tunable accepted before its algorithms came
    # from one list per collective (src/base/params_coll.h), in that order.
    out=$("$info" --params)
    words() { sed -n "/^  UZURA_$1 /{n;s/.*; one of //p}" <<<"$out"; }
    while read -r name list; do
        expect_eq "UZURA_$name words" "$list" "$(words "$name")"
        for w in ${list//|/ }; do
            # Accepted in any case, with a line of help under the tunable.
            expect_eq "UZURA_$name=$w is accepted" "" \
                "$(env "UZURA_$name=$w" "$info" --params | grep '^warning:' || true)"
            expect_eq "UZURA_$name=${w^^} is accepted" "" \
                "$(env "UZURA_$name=${w^^}" "$info" --params | grep '^warning:' || true)"
            sed -n "/^  UZURA_$name /,/^  UZURA_/p" <<<"$out" | grep -Eq "^        $w +[^ ]" ||
                fail "UZURA_$name: no help line for $w"
        done
        expect_eq "UZURA_$name=bogus names the words" \
            "warning: UZURA_$name=\"bogus\" is not a valid enum (choose one of $list)" \
            "$(env "UZURA_$name=bogus" "$info" --params | tail -n1)"
    done <<'WORDS'
COLL_BARRIER auto|dissemination|tree|shm
COLL_BCAST auto|binomial|scatter_allgather|linear|shm
COLL_REDUCE auto|binomial|reduce_scatter_gather|linear|shm
COLL_ALLREDUCE auto|recursive_doubling|rabenseifner|ring|reduce_bcast|shm
COLL_GATHER auto|linear|binomial|shm
COLL_SCATTER auto|linear|binomial|shm
COLL_ALLGATHER auto|ring|recursive_doubling|bruck|linear|shm
COLL_ALLTOALL auto|pairwise|bruck|linear|shm
COLL_ALLTOALLV auto|pairwise|linear|shm
COLL_REDUCE_SCATTER auto|pairwise|ring|reduce_scatterv|shm
COLL_SCAN auto|recursive_doubling|linear
WORDS
    # The other enum tunable keeps its words.  (UZURA_NET is a list of
    # networks now; tests/net/net_multi.sh checks the names it accepts.)
    expect_eq "UZURA_SHM_CMA words" "auto|on|off" "$(words SHM_CMA)"
    ;;
unknown_env)
    expect_eq "no unknown variables: no output" "" "$("$info" --unknown-env)"
    expect_status "no unknown variables: exit 0" 0 "$info" --unknown-env
    expect_eq "a misspelled variable is listed" "UZURA_VERBOS=1" \
        "$(UZURA_VERBOS=1 UZURA_VERBOSE=1 "$info" --unknown-env || true)"
    expect_status "a misspelled variable: exit 1" 1 env UZURA_VERBOS=1 "$info" --unknown-env
    ;;
transports)
    # Exactly the transports of the library's registration table, in its
    # order, each with its line of description.
    listed=$(sed -n 's/^UZ_TRANSPORT(\([a-z0-9_]*\), "\(.*\)")$/\1\t\2/p' \
             "$UZ_SOURCE_DIR/src/transport/transport_list.h" | awk -F'\t' '{printf "  %-22s %s\n", $1, $2}')
    expect_eq "the Transports section" "$listed" \
        "$("$info" | sed -n '/^Transports:/,/^$/p' | sed '1d;/^$/d')"
    expect_eq "udp is listed" "udp" "$("$info" | sed -n '/^Transports:/,/^$/p' | awk '$1 == "udp" {print $1}')"
    # Each optional engine has a row saying whether it was built in (and
    # then whether its library loads here).
    expect_eq "the optional engines" "PMIx libfabric hwloc" \
        "$("$info" | sed -n '/^Optional engines:/,/^$/p' | awk 'NF > 1 && ($2 == "built;" || $2 == "not") {printf "%s%s", s, $1; s = " "}')"
    ;;
usage)
    expect_status "--help" 0 "$info" --help
    expect_eq "--help's first line" "usage: uzura_info [--params | --version | --unknown-env | --help]" \
        "$("$info" --help | head -n1)"
    expect_status "an unknown option" 2 "$info" --bogus
    ;;
prefix)
    # The prefix is where the program is, not what the build was configured
    # with: `make install PREFIX=...` is `cmake --install --prefix ...`.
    row() { "$1" | sed -n 's/^  install prefix *//p'; }
    scratch
    for p in one two; do
        cmake --install "$UZ_BUILD_DIR" --prefix "$UZ_SCRATCH/$p" >"$UZ_SCRATCH/$p.log" ||
            { cat "$UZ_SCRATCH/$p.log"; fail "cmake --install --prefix $UZ_SCRATCH/$p"; }
    done
    expect_eq "installed at one" "$UZ_SCRATCH/one" "$(row "$UZ_SCRATCH/one/bin/uzura_info")"
    expect_eq "installed at two" "$UZ_SCRATCH/two" "$(row "$UZ_SCRATCH/two/bin/uzura_info")"
    # A moved tree, and a link to the program from elsewhere, still name
    # where the program really is.
    mv "$UZ_SCRATCH/two" "$UZ_SCRATCH/moved"
    expect_eq "moved to moved" "$UZ_SCRATCH/moved" "$(row "$UZ_SCRATCH/moved/bin/uzura_info")"
    mkdir "$UZ_SCRATCH/links"
    ln -s "$UZ_SCRATCH/one/bin/uzura_info" "$UZ_SCRATCH/links/uzura_info"
    expect_eq "through a link" "$UZ_SCRATCH/one" "$(row "$UZ_SCRATCH/links/uzura_info")"
    # Not installed at all: the build tree's copy says so.
    expect_eq "the build tree's copy" \
        "(not installed: this copy is in the build tree $(cd "$UZ_BUILD_DIR" && pwd -P); configured as $(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$UZ_BUILD_DIR/CMakeCache.txt"))" \
        "$(row "$info")"
    ;;
*) fail "unknown case $1" ;;
esac
