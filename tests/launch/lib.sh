# lib.sh — what the launch test scripts share: a scratch directory, running
# mpiexec with its output, status and wall time kept, and assertions on
# them.  Sourced by launch_test.sh and hosts_test.sh after case_name is set.

work=$(mktemp -d /tmp/uzura-launch-test.XXXXXX)
cleanup_hooks=()
on_exit() {
    local hook
    for hook in "${cleanup_hooks[@]}"; do
        eval "$hook"
    done
    rm -rf "$work"
}
trap on_exit EXIT
out=$work/stdout err=$work/stderr
failures=0

fail() {
    echo "FAIL ($case_name): $*"
    failures=$((failures + 1))
}

# run ARGS...: mpiexec ARGS with stdout, stderr, status and wall time kept.
run() {
    local start end
    start=$(date +%s%3N)
    "$MPIEXEC" "$@" >"$out" 2>"$err" </dev/null
    rc=$?
    end=$(date +%s%3N)
    elapsed_ms=$((end - start))
}

show() {
    echo "--- stdout:"; cat "$out"
    echo "--- stderr:"; cat "$err"
}

expect_rc() {
    [ "$rc" -eq "$1" ] || { fail "exit status $rc, expected $1"; show; }
}

expect_stdout() {
    [ "$(cat "$out")" == "$1" ] || { fail "stdout differs"; echo "--- wanted:"; echo "$1"; show; }
}

# stdout, its lines sorted (ranks on several hosts write in any order).
expect_sorted_stdout() {
    [ "$(sort "$out")" == "$1" ] || { fail "stdout differs"; echo "--- wanted (sorted):"; echo "$1"; show; }
}

expect_stderr() {
    [ "$(cat "$err")" == "$1" ] || { fail "stderr differs"; echo "--- wanted:"; echo "$1"; show; }
}

# The whole of stderr must match this extended regex.
expect_stderr_re() {
    [[ "$(cat "$err")" =~ ^$1$ ]] || { fail "stderr does not match /$1/"; show; }
}

expect_faster_than() {
    [ "$elapsed_ms" -lt $(($1 * 1000)) ] || fail "took ${elapsed_ms} ms, limit $1 s"
}

# No process of the job may survive it, and no /dev/shm file of the job.
# PIDFILE has "pid job-id parent-pid" per rank (launch_rank hang); the
# parent (mpiexec's proxy, in a multi-host job) must be gone too.
expect_nothing_left() {  # PIDFILE [check-parents]
    local pid job parent
    while read -r pid job parent; do
        if [ -e "/proc/$pid" ]; then
            fail "rank process $pid is still there: $(cat /proc/$pid/stat 2>/dev/null)"
        fi
        # A zombie proxy is gone; reaping it is up to its parent (sshd).
        if [ -n "${2:-}" ] && [ -e "/proc/$parent" ] &&
           [ "$(awk '{ print $3 }' "/proc/$parent/stat" 2>/dev/null)" != Z ]; then
            fail "proxy process $parent is still there: $(tr '\0' ' ' <"/proc/$parent/cmdline")"
        fi
        if compgen -G "/dev/shm/uzura-$job-*" >/dev/null; then
            fail "left behind: $(ls /dev/shm/uzura-"$job"-*)"
        fi
    done <"$1"
}

# Wait until PIDFILE has N lines (every rank has started).
wait_for_ranks() {  # PIDFILE N
    for _ in $(seq 200); do
        [ -f "$1" ] && [ "$(wc -l <"$1")" -eq "$2" ] && return 0
        sleep 0.05
    done
    fail "the ranks did not all start ($(cat "$1" 2>/dev/null | wc -l) of $2)"
    return 1
}

finish() {
    [ $failures -eq 0 ] && echo "ok: $case_name"
    exit $((failures > 0))
}
