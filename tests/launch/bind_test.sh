#!/usr/bin/env bash
# Tests of mpiexec's binding (docs/binding.md), one case per ctest.  Each
# runs mpiexec --report-bindings on bind_cpus (a plain program that prints
# its own Cpus_allowed_list) or bind_hw (an MPI program that prints its
# hardware splits), and bind_check.py checks the report against what the
# ranks saw, against a topology read from /sys in Python, and, for the
# library, against each rank's CPUs.  Cases that need hwloc print
# "SKIPPED: <reason>" and exit 77 without it.
#
#   bind_test.sh CASE    with MPIEXEC, BIND_CPUS, BIND_HW set
set -u
case_name=$1
: "${MPIEXEC:?}" "${BIND_CPUS:?}"
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT
unset UZURA_BIND_TO UZURA_MAP_BY HYDRA_BINDING HYDRA_MAPPING UZURA_HWLOC HWLOC_SYNTHETIC
unset SLURM_JOB_ID SLURM_CPU_BIND_TYPE

source "$(dirname "$0")/lib.sh"
check=$(dirname "$0")/bind_check.py

have_hwloc() {
    "$MPIEXEC" --report-bindings -n 1 true 2>&1 | grep -q '^mpiexec: topology from hwloc'
}

need_hwloc() {
    have_hwloc || { echo "SKIPPED: hwloc (libhwloc.so.15) cannot be loaded by mpiexec"; exit 77; }
}

# report MODE NP [ARGS...]: run bind_cpus, check the report.  $objects
# (0-1/2-3): the objects' CPUs when /sys does not describe them.
report() {
    local mode=$1 np=$2 bind=() extra=()
    shift 2
    [ "$mode" != default ] && bind=(-bind-to "$mode")
    [ -n "${objects:-}" ] && extra=(--objects "$objects")
    run --report-bindings "${bind[@]}" "$@" -n "$np" "$BIND_CPUS"
    expect_rc 0
    python3 "$check" report "$err" "$out" "$np" "$mode" "${extra[@]}" ||
        { fail "$mode at np $np: report wrong"; show; }
}

# The [rank N] lines of stderr, sorted.
report_lines() {
    grep '^\[rank ' "$err" | sort
}

case $case_name in
report.*)
    # Every binding at 1 and 2 ranks (at most the cores here) and at 4 and 8
    # (more ranks than cores: the default does not bind, -bind-to does,
    # round-robin).
    mode=${case_name#report.}
    for np in 1 2 4 8; do
        report "$mode" "$np"
    done
    ;;
sysfs)
    # Without hwloc (UZURA_HWLOC=0) mpiexec reads /sys, says so, and binds
    # the same way; with hwloc present the two reports are identical.
    for mode in default core hwthread socket numa none; do
        for np in 2 4; do
            UZURA_HWLOC=0 report "$mode" "$np"
            grep -q '^mpiexec: topology from /sys, because hwloc is turned off (UZURA_HWLOC=0)' "$err" ||
                { fail "no word of the /sys fallback"; show; }
            if have_hwloc; then
                sysfs_lines=$(report_lines)
                report "$mode" "$np"
                [ "$(report_lines)" == "$sysfs_lines" ] ||
                    { fail "$mode np $np: hwloc and /sys bind differently"; echo "$sysfs_lines"; show; }
            fi
        done
    done
    ;;
taskset)
    # mpiexec's own mask is all the job may use.
    command -v taskset >/dev/null || { echo "SKIPPED: no taskset"; exit 77; }
    for np in 1 2 4; do
        taskset -c 0 "$MPIEXEC" --report-bindings -n $np "$BIND_CPUS" >"$out" 2>"$err"
        rc=$?
        expect_rc 0
        [ "$(sort -u "$out" | sed 's/^rank [0-9]* //' | sort -u)" == "cpus 0" ] ||
            { fail "taskset -c 0, np $np: ranks ran outside CPU 0"; show; }
        taskset -c 0 python3 "$check" report "$err" "$out" $np default || { fail "taskset np $np"; show; }
    done
    # Asked to bind: round-robin over the one core there is.
    taskset -c 0 "$MPIEXEC" --report-bindings -bind-to core -n 2 "$BIND_CPUS" >"$out" 2>"$err"
    [ "$(report_lines)" == $'[rank 0] bound to core 0 (cpus 0)\n[rank 1] bound to core 0 (cpus 0)' ] ||
        { fail "taskset -c 0 -bind-to core"; show; }
    if [ "$(nproc --all)" -ge 2 ]; then
        taskset -c 1 "$MPIEXEC" --report-bindings -n 1 "$BIND_CPUS" >"$out" 2>"$err"
        [ "$(cat "$out")" == "rank 0 cpus 1" ] || { fail "taskset -c 1: rank not on CPU 1"; show; }
    fi
    ;;
environment)
    # UZURA_BIND_TO / UZURA_MAP_BY, Hydra's HYDRA_BINDING / HYDRA_MAPPING;
    # ours win over Hydra's, the command line over both.
    UZURA_BIND_TO=none report none 2
    HYDRA_BINDING=hwthread report hwthread 2
    UZURA_BIND_TO=socket HYDRA_BINDING=hwthread report socket 2
    UZURA_BIND_TO=none report core 2 -bind-to core
    UZURA_MAP_BY=core HYDRA_MAPPING=socket report core 4 -bind-to core
    UZURA_BIND_TO=sideways run -n 1 true
    expect_rc 2
    expect_stderr "mpiexec: UZURA_BIND_TO: 'sideways' is not one of core, hwthread, socket, numa, l3cache, l2cache, l1cache, none (see mpiexec --help)"
    HYDRA_MAPPING=node run -n 1 true
    expect_rc 2
    expect_stderr "mpiexec: HYDRA_MAPPING: 'node' is not one of core, hwthread, socket, numa, l3cache, l2cache, l1cache, slot (see mpiexec --help)"
    ;;
options)
    # Both spellings, --name=value, -map-by, and errors.
    report core 2 --bind-to=core
    report hwthread 4 --bind-to hwthread --map-by hwthread
    report core 2 -bind-to core -map-by socket
    report core 4 -bind-to core -map-by slot
    report socket 2 -bind-to package
    report numa 2 --bind-to=numa --map-by=core
    run -bind-to core:2 -n 1 true
    expect_rc 2
    expect_stderr "mpiexec: -bind-to: 'core:2' is not one of core, hwthread, socket, numa, l3cache, l2cache, l1cache, none (see mpiexec --help)"
    run --map-by ppr:1:node -n 1 true
    expect_rc 2
    run -n 1 true -bind-to
    expect_rc 0                 # after the program: its argument
    run -n 1 -bind-to
    expect_rc 2
    # Without --report-bindings nothing is said.
    run -bind-to core -n 2 "$BIND_CPUS"
    expect_rc 0
    expect_stderr ""
    expect_sorted_stdout $'rank 0 cpus 0\nrank 1 cpus 1'
    ;;
proxy)
    # Across hosts each proxy binds its own host's ranks: two proxies here
    # (-launcher fork), each with two ranks on cores 0 and 1.
    run -launcher fork -hosts nodeA:2,nodeB:2 -n 4 --report-bindings -bind-to core "$BIND_CPUS"
    expect_rc 0
    python3 "$check" report "$err" "$out" 4 core --per-host 2 || { fail "proxies bound wrongly"; show; }
    [ "$(grep -c '^mpiexec on node[AB]: topology from' "$err")" == 2 ] ||
        { fail "each proxy should say where its topology came from"; show; }
    [ "$(report_lines)" == $'[rank 0] bound to core 0 (cpus 0)\n[rank 1] bound to core 1 (cpus 1)\n[rank 2] bound to core 0 (cpus 0)\n[rank 3] bound to core 1 (cpus 1)' ] ||
        [ "$(nproc)" != 2 ] || { fail "per-host round-robin"; show; }
    # The default, per host: 2 ranks per host fit, 3 do not.
    run -launcher fork -hosts nodeA:2,nodeB:2 -n 4 --report-bindings "$BIND_CPUS"
    python3 "$check" report "$err" "$out" 4 default --per-host 2 || { fail "proxy default"; show; }
    run -launcher fork -hosts nodeA:3,nodeB:3 -n 6 --report-bindings "$BIND_CPUS"
    [ "$(grep -c 'not bound' "$err")" == 6 ] || [ "$(nproc)" -ge 3 ] || { fail "oversubscribed proxies bound"; show; }
    ;;
slurm)
    # Inside a Slurm step that bound mpiexec, the default leaves it alone;
    # an explicit -bind-to still binds (within the step's CPUs).
    SLURM_JOB_ID=1 SLURM_CPU_BIND_TYPE=mask_cpu: run --report-bindings -n 1 "$BIND_CPUS"
    grep -q 'not binding by default: Slurm bound this step already (SLURM_CPU_BIND_TYPE=mask_cpu:)' "$err" ||
        { fail "Slurm's binding not noticed"; show; }
    SLURM_JOB_ID=1 SLURM_CPU_BIND_TYPE=mask_cpu: python3 "$check" report "$err" "$out" 1 none ||
        { fail "rebound under Slurm"; show; }
    SLURM_JOB_ID=1 SLURM_CPU_BIND_TYPE=none report default 1
    SLURM_JOB_ID=1 SLURM_CPU_BIND_TYPE=mask_cpu: report core 1
    ;;
synthetic)
    # A machine with hardware threads, made up for hwloc (HWLOC_SYNTHETIC):
    # one core of two threads, CPUs 0 and 1.  Two ranks do not fit on one
    # core, so the default does not bind; -bind-to core puts both on it.
    need_hwloc
    export HWLOC_SYNTHETIC="pack:1 core:1 pu:2"
    run --report-bindings -n 2 "$BIND_CPUS"
    grep -q 'not binding by default: 2 ranks on this host, 1 core available' "$err" || { fail "default"; show; }
    objects=0-1 report core 2
    [ "$(report_lines)" == $'[rank 0] bound to core 0 (cpus 0-1)\n[rank 1] bound to core 0 (cpus 0-1)' ] ||
        { fail "-bind-to core on a 2-thread core"; show; }
    objects=0/1 report hwthread 2
    objects=0-1 report core 1
    # Two packages of one core each: socket binding alternates.
    export HWLOC_SYNTHETIC="pack:2 core:1 pu:1"
    objects=0/1 report socket 4
    objects=0/1 report core 2 -map-by socket
    ;;
missing_hwloc)
    # hwloc installed but unloadable at run time: in a mount namespace of
    # its own, the library file is hidden behind an empty one.
    need_hwloc
    lib=$(readlink -f "$(ldconfig -p | awk '/libhwloc\.so\.15 /{print $NF; exit}')")
    [ -f "$lib" ] || { echo "SKIPPED: libhwloc.so.15 not found by ldconfig"; exit 77; }
    unshare -m --propagation private true 2>/dev/null ||
        { echo "SKIPPED: cannot make a mount namespace (needs root)"; exit 77; }
    hide="mount --bind /dev/null '$lib' && exec \"\$@\""
    unshare -m --propagation private sh -c "$hide" sh "$MPIEXEC" --report-bindings -n 2 \
        -genv UZURA_VERBOSE 1 "${BIND_HW:-$BIND_CPUS}" >"$out" 2>"$err"
    rc=$?
    expect_rc 0
    grep -q '^mpiexec: topology from /sys, because libhwloc.so.15 cannot be loaded (.*); mpiexec may use' "$err" ||
        { fail "mpiexec did not say hwloc is missing"; show; }
    if [ -n "${BIND_HW:-}" ]; then
        grep -q '^Uzura rank 0: topology: read from /sys, because libhwloc.so.15 cannot be loaded' "$err" ||
            { fail "the library did not say hwloc is missing"; show; }
        python3 "$check" hw "$err" "$out" 2 || { fail "groups wrong without hwloc"; show; }
    fi
    ;;
hw.np*)
    # The library's view of the binding: HW_GUIDED groups and
    # MPI_Get_hw_resource_info follow each rank's CPUs, and hwloc and the
    # /sys fallback agree line for line.
    : "${BIND_HW:?}"
    np=${case_name#hw.np}
    for bind in default none core hwthread socket; do
        args=(--report-bindings -n "$np" --timeout 60)
        [ "$bind" != default ] && args+=(-bind-to "$bind")
        UZURA_HWLOC=0 run "${args[@]}" "$BIND_HW"
        expect_rc 0
        python3 "$check" hw "$err" "$out" "$np" || { fail "/sys, -bind-to $bind: groups wrong"; show; }
        sysfs_out=$(cat "$out")
        if have_hwloc; then
            run "${args[@]}" -genv UZURA_VERBOSE 1 "$BIND_HW"
            expect_rc 0
            python3 "$check" hw "$err" "$out" "$np" || { fail "hwloc, -bind-to $bind: groups wrong"; show; }
            [ "$(cat "$out")" == "$sysfs_out" ] ||
                { fail "-bind-to $bind: hwloc and /sys differ"; echo "--- /sys:"; echo "$sysfs_out"; show; }
            grep -q '^Uzura rank 0: topology: read with hwloc' "$err" ||
                { fail "the library did not say it read hwloc"; show; }
        fi
    done
    # With both off, the library says why.
    UZURA_HWLOC=0 run -n 1 -genv UZURA_VERBOSE 1 "$BIND_HW"
    grep -q '^Uzura rank 0: topology: read from /sys, because hwloc is turned off (UZURA_HWLOC=0)' "$err" ||
        { fail "the library did not say it read /sys"; show; }
    ;;
*)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
[ "$failures" -eq 0 ]
