#!/usr/bin/env bash
# uzura_info.sh — build/bin/uzura_info: `version`, `params`, `choices` (the words of enum
# tunables), `unknown_env`, `transports` (the library's registration table), `usage`,
# `prefix` (installed copies name the prefix they are installed at), and the MPI_T
# listings: `mpit_param` (--param NAME), `mpit_pvars` (--pvars) and `mpit_all` (--all);
# `coll_table` (--coll-table: the collectives' algorithms under UZURA_COLL_* overrides).
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
info=$UZ_BUILD_DIR/bin/uzura_info
# A clean environment: no UZURA_* variables but the ones a case sets.
for v in $(compgen -e | grep '^UZURA_' || true); do unset "$v"; done

case ${1:?usage: uzura_info.sh version|params|choices|unknown_env|transports|usage|prefix|mpit_param|mpit_pvars|mpit_all|coll_table} in
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
COLL_GATHER auto|linear|binomial|shm|pull|push
COLL_SCATTER auto|linear|binomial|shm|pull
COLL_ALLGATHER auto|ring|recursive_doubling|bruck|linear|shm
COLL_ALLTOALL auto|pairwise|bruck|linear|shm
COLL_ALLTOALLV auto|pairwise|linear|shm
COLL_REDUCE_SCATTER auto|pairwise|ring|reduce_scatterv|shm
COLL_SCAN auto|recursive_doubling|linear|shm
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
    expect_eq "--help's first line" "usage: uzura_info [--params | --all | --param NAME | --pvars | --events | --categories |" \
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
mpit_param)
    # What MPI_T says of one control variable: type, scope, verbosity, value;
    # then its help, default, when it may be written, and an enum's words.
    out=$("$info" --param EAGER_LIMIT)
    expect_eq "--param EAGER_LIMIT" \
        "  UZURA_EAGER_LIMIT              unsigned long long local     tuner/basic   value 0" "$(head -n1 <<<"$out")"
    expect_eq "its default and when it may be written" "      default 0; written until MPI_Init, read-only after" \
        "$(sed -n 3p <<<"$out")"
    expect_eq "the UZURA_ prefix may be given" "$out" "$("$info" --param UZURA_EAGER_LIMIT)"
    expect_eq "the value in the environment" \
        "  UZURA_EAGER_LIMIT              unsigned long long local     tuner/basic   value 4096" \
        "$(UZURA_EAGER_LIMIT=4k "$info" --param EAGER_LIMIT | head -n1)"
    out=$("$info" --param COLL_BCAST)
    expect_eq "an enum, written any time alike on every rank" \
        "  UZURA_COLL_BCAST               int                all_eq    tuner/basic   value auto (0)" "$(head -n1 <<<"$out")"
    expect_eq "its words" "0 = auto|1 = binomial|2 = scatter_allgather|3 = linear|4 = shm" \
        "$(sed -n 's/^        //p' <<<"$out" | paste -sd'|')"
    expect_eq "launcher values are constant" "constant" "$("$info" --param JOB_ID | awk 'NR == 1 {print $3}')"
    expect_status "an unknown name" 1 "$info" --param NO_SUCH_TUNABLE
    expect_eq "an unknown name says so" \
        "uzura_info: UZURA_NO_SUCH_TUNABLE is not a control variable (see uzura_info --params)" \
        "$("$info" --param NO_SUCH_TUNABLE 2>&1 >/dev/null || true)"
    expect_status "--param needs a name" 2 "$info" --param
    ;;
mpit_pvars)
    out=$("$info" --pvars)
    expect_eq "first performance variable" \
        "  eager_sent                         counter       unsigned long long none         atomic" \
        "$(sed -n 2p <<<"$out")"
    expect_eq "a level bound to a communicator" \
        "  comm_posted_queue_length           level         unsigned long long communicator readonly continuous atomic" \
        "$(grep '^  comm_posted_queue_length ' <<<"$out")"
    expect_eq "the timer" "  wait_time                          timer         double             none         atomic" \
        "$(grep '^  wait_time ' <<<"$out")"
    expect_eq "udp's retransmissions, read without stopping it" \
        "  udp_retransmits                    counter       unsigned long long none         " \
        "$(grep '^  udp_retransmits ' <<<"$out")"
    # Four message and byte counts for each transport of the library's table.
    for t in $(sed -n 's/^UZ_TRANSPORT(\([a-z0-9_]*\),.*/\1/p' "$UZ_SOURCE_DIR/src/transport/transport_list.h"); do
        for what in messages_sent bytes_sent messages_received bytes_received; do
            grep -q "^  ${t}_$what " <<<"$out" || fail "no ${t}_$what"
        done
    done
    n=$(grep -c '^  [a-z]' <<<"$out")
    expect_eq "the count in the heading" "MPI_T performance variables ($n): name, class, type, bound to, flags" \
        "$(head -n1 <<<"$out")"
    ;;
mpit_all)
    out=$("$info" --all)
    expect_eq "starts with the report" "Uzura $UZ_VERSION (MPI 5.0, standard ABI 1.0)" "$(head -n1 <<<"$out")"
    expect_eq "the sections" \
        "Tunables|MPI_T control variables|MPI_T performance variables|MPI_T events (4): name, elements|MPI_T categories" \
        "$(grep -E '^(Tunables|MPI_T )' <<<"$out" | sed 's/ (environment.*//; s/ ([0-9]*): name, \(type\|class\|control\).*//' | paste -sd'|')"
    ncvars=$(grep -c '^  UZURA_' <<<"$("$info" --params)")
    expect_eq "every tunable is a control variable" "MPI_T control variables ($ncvars): name, type, scope, verbosity, value" \
        "$(grep '^MPI_T control variables' <<<"$out")"
    expect_eq "the events" "unexpected_message_arrived rendezvous_started peer_declared_dead udp_retransmit" \
        "$("$info" --events | awk '/^  [a-z]/ {printf "%s%s", s, $1; s = " "}')"
    ;;
coll_table)
    # One operation's table: `section OUT NAME`; the cells of one row of it,
    # one per line: `cells SECTION ROW` (ROW "4 MiB", or "-" for barrier).
    section() { awk -v h="### $2: " 'index($0, h) == 1 {on = 1; print; next} /^### / {on = 0} on' <<<"$1"; }
    cells() { grep "^| $2 " <<<"$1" | awk -F'|' '{for (i = 3; i < NF; i++) {gsub(/ /, "", $i); print $i}}'; }
    base=$("$info" --coll-table)
    hosts=$("$info" --coll-table=hosts)
    ops="barrier bcast reduce allreduce gather scatter allgather alltoall alltoallv reduce_scatter scan"
    for op in $ops; do
        [ -n "$(section "$base" "$op")" ] || fail "no table for $op"
    done
    expect_eq "auto, one host: 64 ranks with a core each broadcast 4 MiB by scatter_allgather" \
        "scatter_allgather" "$(cells "$(section "$base" bcast)" "4 MiB" | sed -n 9p)"
    expect_eq "auto, one host: allreduce of 8 bytes through the area" "shm" \
        "$(cells "$(section "$base" allreduce)" "8 B" | sort -u)"
    expect_eq "across hosts no cell is shm" "" "$(grep -E '\| shm +\|' <<<"$hosts" || true)"
    # Each word of each UZURA_COLL_<OP> forces its algorithm: in the 4 MiB
    # row every column says it (no fallback applies to doubles summed
    # there), the heading names it, and every other table stays as it was.
    for op in $ops; do
        var=COLL_${op^^}
        words=$(sed -n "/^  UZURA_$var /{n;s/.*; one of //p}" <<<"$("$info" --params)")
        [ -n "$words" ] || fail "no words for UZURA_$var"
        row="4 MiB"
        [ "$op" = barrier ] && row="-"
        for w in ${words//|/ }; do
            [ "$w" = auto ] && continue
            out=$(env "UZURA_$var=$w" "$info" --coll-table)
            expect_eq "UZURA_$var=$w: the heading" "### $op: UZURA_$var=$w" "$(grep "^### $op: " <<<"$out")"
            expect_eq "UZURA_$var=$w: the $row row" "$w" "$(cells "$(section "$out" "$op")" "$row" | sort -u)"
            for other in $ops; do
                [ "$other" = "$op" ] && continue
                [ "$(section "$out" "$other")" = "$(section "$base" "$other")" ] ||
                    fail "UZURA_$var=$w changed the $other table"
            done
            if [ "$w" = shm ]; then
                expect_eq "UZURA_$var=shm across hosts: message passing" "" \
                    "$(section "$(env "UZURA_$var=shm" "$info" --coll-table=hosts)" "$op" | grep -E '\| shm +\|' || true)"
            fi
        done
    done
    # A size threshold moves the crossover.
    expect_eq "UZURA_COLL_BCAST_LONG=1k: 4 KiB at 4 ranks by scatter_allgather" "scatter_allgather" \
        "$(cells "$(section "$(UZURA_COLL_BCAST_LONG=1k "$info" --coll-table)" bcast)" "4 KiB" | sed -n 3p)"
    expect_eq "UZURA_COLL_SHM_MAX=0: no shared area" "" \
        "$(UZURA_COLL_SHM_MAX=0 "$info" --coll-table | grep -E '\| shm +\|' || true)"
    # An invalid word: exit 2 and a message naming the words.
    expect_status "UZURA_COLL_BCAST=bogus" 2 env UZURA_COLL_BCAST=bogus "$info" --coll-table
    expect_eq "UZURA_COLL_BCAST=bogus names the words" \
        'uzura_info: UZURA_COLL_BCAST="bogus" is not a valid enum (choose one of auto|binomial|scatter_allgather|linear|shm)' \
        "$(UZURA_COLL_BCAST=bogus "$info" --coll-table 2>&1 >/dev/null || true)"
    expect_status "an unknown variant" 2 "$info" --coll-table=elsewhere
    ;;
*) fail "unknown case $1" ;;
esac
