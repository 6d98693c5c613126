#!/bin/bash
# Guest step: verbs4j perf against Debian's C perftest over perftest's own TCP handshake, on rxe0.
#
# For each of write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat and atomic_lat, two pairs:
#   1. a C ib_<test> server and a `verbs4j perf <test>` client (FFM provider);
#   2. a `verbs4j perf <test> --server` and a C ib_<test> client.
# Both ends run in this guest and meet over 127.0.0.1 (the rxe link is dummy0, so nothing leaves the guest).
# Counts are small and the warm-up is off: the figures do not matter here, and a JVM under TCG takes a minute or more
# to start. For the same reason the JVM is started directly (./verbs4j would look for changed sources over 9p each
# time) with C1 only (-XX:TieredStopAtLevel=1), which compiles far less on the one guest CPU it is pinned to. A pair passes when both processes exit 0 and every side that
# prints a result row (perftest: the client, and the server of every bandwidth test; read_lat and atomic_lat
# servers print none) has one for the size, with the iterations asked for and a message rate or typical latency. perftest's own figures may
# read 0.00, inf or -nan under TCG (it turns TSC cycles into time with a CPU frequency it samples itself, see
# softroce/guest/runner), so such a figure from a C program is noted, not failed; every figure verbs4j prints must
# be a positive number. The step fails unless every pair passes.
# softroce-limit: 1800
# (softroce/run's limit for this step, in quiet-machine seconds: some 3 times its time on a quiet host;
# the guest runner stretches it by the host's measured slowdown, see softroce/README.md "Time")
set -uo pipefail

dev=${VERBS4J_RDMA_DEVICE:-rxe0}
gid=${VERBS4J_RDMA_GID_INDEX:-1}
out=${VERBS4J_STEP_OUT:-$PWD/target/perftest-interop}
mkdir -p "$out"
port=19515
jar=
for f in tools/target/verbs4j-tools-*.jar; do
    case $f in *-sources.jar | *-javadoc.jar | *-tests.jar) ;; *) [ -f "$f" ] && jar=$f ;; esac
done
if [ -z "$jar" ] || [ ! -f tools/target/classpath.txt ]; then
    echo "FAIL: no tools jar or tools/target/classpath.txt: build on the host first (./mvnw -B -q package -DskipTests)"
    exit 1
fi
verbs4j=(java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1
    "-XX:ErrorFile=$out/hs_err_pid%p.log" -cp "$jar:$(cat tools/target/classpath.txt)" org.verbs4j.tools.Main)
# The JVM stays on the CPU the runner pinned this step to (JIT under TCG); a C program may use the other one.
c_pin=()
if [ "$(nproc --all)" -ge 2 ] && command -v taskset >/dev/null; then
    c_pin=(taskset -c 1)
fi

pass=0 fail=0 notes=()
# Each process may take this long, seconds: a JVM start is slow under TCG, much slower on a loaded host (the
# guest's slowdown at the step's start, VERBS4J_SLOWDOWN in per mille, stretches it).
limit=${PERFTEST_INTEROP_LIMIT:-$((600 * ${VERBS4J_SLOWDOWN:-1000} / 1000))}

# Waits until something listens on TCP port $1 (IPv4 or IPv6, state 0A in /proc/net/tcp*), for at most $limit
# seconds, or until the server, process $2, has ended: a server that cannot start ends its pair at once.
listening() {
    local hex i
    hex=$(printf '%04X' "$1")
    for ((i = 0; i < 5 * limit; i++)); do
        grep -qE "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}

# Ends the server, process $1, when its client failed: it would otherwise wait for a client that never
# comes until its own timeout (perftest's C servers wait for their peer until $limit).
stop_server() {
    kill -TERM "$1" 2>/dev/null || return 0
    echo "(the client failed: stopping the server)"
}

# row_ok LOG SIZE ITERS COLUMN STRICT: LOG has a row "SIZE ITERS ..." (ITERS or one fewer: a ping-pong side that
# waits first times one round trip less) whose COLUMN is a positive number; without STRICT, also 0.00, inf or nan.
row_ok() {
    awk -v s="$2" -v n="$3" -v c="$4" -v strict="$5" '
        $1 == s && ($2 == n || $2 == n - 1) && NF >= c {
            if ($c ~ /^[0-9]+\.[0-9]+$/ && $c + 0 > 0) good = 1
            else if (!strict && $c ~ /^([0-9]+\.[0-9]+|inf|-?nan)$/) good = 1
        }
        END { exit !good }' "$1"
}

# Whether LOG's row for SIZE has no usable figure in COLUMN (0.00, inf, nan: perftest's clock under TCG).
has_zero_row() {
    awk -v s="$2" -v c="$3" '$1 == s && NF >= c && ($c ~ /^(inf|-?nan)$/ || $c + 0 == 0) { z = 1 } END { exit !z }' "$1"
}

# check LOG WHO SIZE ITERS COLUMN: WHO is c or j (C perftest or verbs4j).
check() {
    local log=$1 who=$2
    if [ "$who" = j ]; then
        row_ok "$log" "$3" "$4" "$5" 1 && return 0
        echo "FAIL: no row '$3 $4 ...' with a positive figure in column $5 of $log"
        return 1
    fi
    if ! row_ok "$log" "$3" "$4" "$5" 0; then
        echo "FAIL: no row '$3 $4 ...' in $log"
        return 1
    fi
    if has_zero_row "$log" "$3" "$5"; then
        notes+=("$(basename "$log" .log): perftest printed no usable figure (0.00/inf/nan: its TCG clock)")
    fi
    return 0
}

# pair TEST DIRECTION: DIRECTION c-server (C server, verbs4j client) or j-server (verbs4j server, C client).
pair() {
    local test=$1 dir=$2 kind args size iters col srv_rows=1 rc=0 spid
    kind=${test#*_}
    case $test in
        atomic_*) size=8 args=() ;;
        *_bw) size=4096 args=(-s 4096) ;;
        *) size=2 args=(-s 2) ;;
    esac
    # The message rate (bandwidth tests) and t_typical (latency): an 8-byte atomic_bw at 150 msg/s reads 0.00 MB/s.
    if [ "$kind" = bw ]; then iters=100 col=5; else iters=50 col=5; fi
    case $test in read_lat | atomic_lat) srv_rows=0 ;; esac
    args+=(-n "$iters" -d "$dev" -x "$gid" -p "$port" -F)
    local c=("${c_pin[@]}" "ib_$test" "${args[@]}")
    local j=("${verbs4j[@]}" perf "$test" --provider ffm "${args[@]}")
    [ "$kind" = bw ] && j+=(--perform_warm_up=false)
    local shown="${j[*]}"
    shown="verbs4j perf ${shown#*Main perf }"
    local name="$test.$dir" slog clog swho cwho
    slog="$out/$name.server.log" clog="$out/$name.client.log"
    if [ "$dir" = c-server ]; then
        swho=c cwho=j
        echo "== $(date +%T) $name: ${c[*]}  <-  $shown 127.0.0.1"
        timeout --kill-after=5 "$limit" "${c[@]}" > "$slog" 2>&1 &
        spid=$!
        if listening "$port" "$spid"; then
            timeout --kill-after=5 "$limit" "${j[@]}" 127.0.0.1 > "$clog" 2>&1 || rc=$?
        else
            echo "nothing listens on port $port (the server ended or never listened)" > "$clog"; rc=1
        fi
        ((rc == 0)) || stop_server "$spid"
    else
        swho=j cwho=c
        echo "== $(date +%T) $name: $shown --server  <-  ${c[*]} 127.0.0.1"
        timeout --kill-after=5 "$limit" "${j[@]}" --server > "$slog" 2>&1 &
        spid=$!
        if listening "$port" "$spid"; then
            timeout --kill-after=5 "$limit" "${c[@]}" 127.0.0.1 > "$clog" 2>&1 || rc=$?
        else
            echo "nothing listens on port $port (the server ended or never listened)" > "$clog"; rc=1
        fi
        ((rc == 0)) || stop_server "$spid"
    fi
    local src=0
    wait "$spid" || src=$?
    port=$((port + 1))
    echo "-- $(date +%T) client (rc=$rc)"; cat "$clog"
    echo "-- server (rc=$src)"; cat "$slog"
    local ok=1
    [ "$rc" -eq 0 ] || { echo "FAIL: the client exited $rc"; ok=0; }
    [ "$src" -eq 0 ] || { echo "FAIL: the server exited $src"; ok=0; }
    if ((ok)); then
        check "$clog" "$cwho" "$size" "$iters" "$col" || ok=0
        if ((srv_rows)); then
            if [ "$swho" = j ] && [ "$kind" = bw ] && has_zero_row "$clog" "$size" "$col" &&
                row_ok "$slog" "$size" "$iters" "$col" 0; then
                # A verbs4j server of a bandwidth test prints the C client's own report: 0.00 when perftest's
                # clock failed under TCG, already noted from the client's log above.
                :
            else
                check "$slog" "$swho" "$size" "$iters" "$col" || ok=0
            fi
        fi
    fi
    if ((ok)); then
        pass=$((pass + 1)); echo "PASS: $name"
    else
        fail=$((fail + 1)); echo "FAIL: $name"
    fi
}

# PERFTEST_INTEROP_ONLY (softroce/run --env) may name some pairs, e.g. "write_bw.c-server send_lat.j-server".
only=" ${PERFTEST_INTEROP_ONLY:-} "
for test in write_bw send_lat send_bw write_lat read_bw read_lat atomic_bw atomic_lat; do
    for dir in c-server j-server; do
        [ "$only" = "  " ] || [[ $only == *" $test.$dir "* ]] || continue
        pair "$test" "$dir"
    done
done

summary="$pass of $((pass + fail)) pairs interoperate (C perftest $(ib_write_bw -V 2>/dev/null | awk '{print $2}'))"
if ((${#notes[@]})); then
    printf '%s\n' "${notes[@]}"
    summary+="; ${#notes[@]} C figure(s) 0.00/inf/nan"
fi
echo "$summary" | tee "$out/note"
[ "$fail" -eq 0 ]
