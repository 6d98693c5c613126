#!/bin/bash
# Guest step: the emulated provider's RoCE v2 wire device against the kernel's rxe, over a veth pair, on a clean
# and on a hostile network; rxe against rxe is the arbiter of the hostile phases (issue 27).
#
#   root namespace                            namespace "wire"
#   rxe1 on veth vrxe 10.79.0.1  <-- veth -->  vjava 10.79.0.2, roce0 (a JVM with -Dverbs4j.emulated.roce)
#   rxa on veth varba 10.81.0.1  <-- veth -->  varbb 10.82.0.1, rxb (the arbiter, both in the root namespace)
#
# rxe binds UDP 4791 on every address of its namespace, so the Java end needs a namespace of its own. rxe0 on
# dummy0 stays as it is; rxe1 is a second rxe device on the veth end. Two JVMs run
# org.verbs4j.tools.interop.WireInterop (tools' test classes): role rxe through the FFM provider, role wire
# through the emulated provider; they meet over TCP across the veth and run every case in both directions
# (see the class). Role rxe calls this script back as its hook, "wire-interop.sh PHASE|none", before and after
# each lossy phase: netem loss and reordering on the Java side's veth end, then each fault class of
# wire-faults.sh (drop, duplicate, reorder, delay past the timeout, of every Nth request or response packet of
# each opcode) on both ends. Before that, the arbiter runs the fault phases between rxa and rxb, two more rxe
# devices on a veth pair that policy routing makes their path (wire-net.sh's rxe_pair_up). A case that fails
# there fails in rxe itself, and when it fails against the wire device too it is listed as rxe's and not
# counted. The step fails if any other case fails on either side; its note is the one-line summary. Build on
# the host first (tools' test classes and its jar). WIRE_INTEROP_FAULTS=0 (--env) runs netem's phases only,
# without the arbiter.
# softroce-limit: 1500
# (softroce/run's limit for this step, in quiet-machine seconds: some 3 times its time on a quiet host;
# the guest runner stretches it by the host's measured slowdown, see softroce/README.md "Time")
set -uo pipefail

NS=wire
RXE_DEV=rxe1
RXE_IF=vrxe
JAVA_IF=vjava
RXE_IP=10.79.0.1
JAVA_IP=10.79.0.2
TCP_PORT=18515
# The arbiter: rxe against rxe over a veth pair of the root namespace, through the same fault phases.
ARB_A_DEV=rxa ARB_A_IF=varba ARB_A_IP=10.81.0.1
ARB_B_DEV=rxb ARB_B_IF=varbb ARB_B_IP=10.82.0.1
ARB_TCP_PORT=18516

. "$(dirname "$(readlink -f "$0")")/wire-faults.sh"

# Role rxe's hook: "wire-interop.sh MODE" (with WIRE_INTEROP_ARBITER=1 in its environment for the rxe-against-rxe
# run). The netem modes (loss, reorder) act on the second end's egress (the Java side's), the fault modes on both
# ends'.
if [ $# -gt 0 ]; then
    end_dev=("$RXE_IF" "$JAVA_IF") end_pre=("" "ip netns exec $NS")
    if [ "${WIRE_INTEROP_ARBITER:-0}" = 1 ]; then
        end_dev=("$ARB_A_IF" "$ARB_B_IF") end_pre=("" "")
    fi
    case $1 in
        loss) qdisc=(netem loss 5%) ;;
        reorder) qdisc=(netem delay 1ms reorder 25% 50%) ;;
        none)
            for i in 0 1; do wire_fault_clear "${end_dev[i]}" ${end_pre[i]}; done
            exit 0 ;;
        *-req | *-resp)
            for i in 0 1; do
                echo "+ $1 on ${end_dev[i]} egress (every ${WIRE_FAULT_EVERY}th packet of each opcode)"
                wire_fault_apply "${end_dev[i]}" "$1" ${end_pre[i]} || exit 1
            done
            exit 0 ;;
        *) echo "usage: wire-interop.sh loss|reorder|none|FAULT-req|FAULT-resp" >&2; exit 2 ;;
    esac
    echo "+ tc qdisc replace dev ${end_dev[1]} root ${qdisc[*]} ${end_pre[1]:+(${end_pre[1]})}"
    exec ${end_pre[1]} tc qdisc replace dev "${end_dev[1]}" root "${qdisc[@]}"
fi

out=${VERBS4J_STEP_OUT:-$PWD/target/wire-interop}
mkdir -p "$out"
fail() {
    echo "FAIL: $*" | tee "$out/note"
    exit 1
}
try() {
    echo "+ $*"
    "$@" || fail "$* (exit $?)"
}
# follow LOG PID: prints LOG's phase changes and failures while process PID runs, so that a long run shows its
# progress (and the runner's hang detector sees output).
follow() {
    tail -n +1 -f --pid="$2" "$1" 2>/dev/null | grep --line-buffered -E '^\[[a-z]+\] (netem:|FAIL|phase )' &
}
# The case names of "NAME: why" lines, sorted, once each.
case_names() {
    sed 's/: .*//' | sort -u
}

jar=
for f in tools/target/verbs4j-tools-*.jar; do
    case $f in *-sources.jar | *-javadoc.jar | *-tests.jar) ;; *) [ -f "$f" ] && jar=$f ;; esac
done
if [ -z "$jar" ] || [ ! -f tools/target/classpath.txt ] || [ ! -f tools/target/test-classes/org/verbs4j/tools/interop/WireInterop.class ]; then
    fail "no tools jar, tools/target/classpath.txt or WireInterop.class: build on the host first (./mvnw -B -q -pl tools -am package -DskipTests)"
fi

# ---------------------------------------------------------------- the network
. "$(dirname "$(readlink -f "$0")")/wire-net.sh"
wire_net_up "$NS" "$RXE_DEV" "$RXE_IF" "$JAVA_IF" "$RXE_IP" "$JAVA_IP" || fail "the network: see above"
idx=$WIRE_NET_GID_INDEX

# ---------------------------------------------------------------- the two JVMs
cp="tools/target/test-classes:$jar:$(cat tools/target/classpath.txt)"
# C1 only: far less compiling on the one guest CPU the step is pinned to (see perftest-interop.sh).
java=(java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1
    "-XX:ErrorFile=$out/hs_err_pid%p.log" -cp "$cp")
main=org.verbs4j.tools.interop.WireInterop
limit=${WIRE_INTEROP_LIMIT:-$((600 * ${VERBS4J_SLOWDOWN:-1000} / 1000))}
hook=$(readlink -f "$0")
# The lossy phases: netem loss and reordering, then (WIRE_INTEROP_FAULTS=1, the default) every fault class of
# wire-faults.sh. WIRE_INTEROP_LOSSY=0 runs the clean phase only.
phases=(loss reorder)
[ "${WIRE_INTEROP_FAULTS:-1}" = 1 ] && phases+=("${WIRE_FAULT_MODES[@]}")
hook_args=("$hook" "${phases[@]}")
[ "${WIRE_INTEROP_LOSSY:-1}" = 1 ] || hook_args=()

# ---------------------------------------------------------------- the arbiter: rxe against rxe
# The same fault phases between two rxe devices (rxa and rxb, both through the FFM provider). A case that fails
# there fails in rxe itself: when it fails between rxe and the wire device too, it is reported as rxe's, not
# counted. Its names, in the main run's terms: rxa plays role rxe, rxb role java.
arb_failed=
if [ "${WIRE_INTEROP_LOSSY:-1}" = 1 ] && [ "${WIRE_INTEROP_FAULTS:-1}" = 1 ]; then
    rxe_pair_up "$ARB_A_DEV" "$ARB_A_IF" "$ARB_A_IP" "$ARB_B_DEV" "$ARB_B_IF" "$ARB_B_IP" \
        || fail "the arbiter's network: see above"
    echo "== $(date +%T) arbiter: $main rxe $ARB_A_DEV  <->  $main wire $ARB_B_DEV (FFM), ${WIRE_FAULT_MODES[*]}"
    # Up to 12 failed cases in a row: the arbiter records what rxe fails rather than stopping at it.
    WIRE_INTEROP_ARBITER=1 timeout --kill-after=5 "$limit" "${java[@]}" -Dwireinterop.name=rxa \
        -Dwireinterop.abortAfter=12 -Dwireinterop.clean=false "$main" rxe "$ARB_A_DEV" "$RXE_PAIR_GID_A" \
        "127.0.0.1:$ARB_TCP_PORT" "$hook" "${WIRE_FAULT_MODES[@]}" > "$out/arbiter-a.log" 2>&1 &
    apid=$!
    follow "$out/arbiter-a.log" "$apid"
    timeout --kill-after=5 "$limit" "${java[@]}" -Dwireinterop.name=rxb -Dwireinterop.abortAfter=12 \
        -Dwireinterop.provider=ffm "$main" wire "$ARB_B_DEV" "$RXE_PAIR_GID_B" "127.0.0.1:$ARB_TCP_PORT" \
        > "$out/arbiter-b.log" 2>&1 &
    bpid=$!
    arc=0 brc=0
    wait "$apid" || arc=$?
    wait "$bpid" || brc=$?
    echo "-- $(date +%T) arbiter (exit $arc and $brc)"
    grep -h '^failed: \|^wire-interop: ' "$out/arbiter-a.log" "$out/arbiter-b.log"
    grep -q '^wire-interop: ' "$out/arbiter-a.log" || { tail -n 30 "$out/arbiter-a.log" "$out/arbiter-b.log"; \
        fail "the arbiter (rxe against rxe) did not finish (exit $arc and $brc)"; }
    echo "-- rxa and rxb counters (nonzero)"
    for d in "$ARB_A_DEV" "$ARB_B_DEV"; do
        echo "$d:$(for c in /sys/class/infiniband/$d/ports/1/hw_counters/*; do
            v=$(cat "$c" 2>/dev/null) && [ "$v" != 0 ] && printf ' %s=%s' "${c##*/}" "$v"; done)"
    done
    arb_failed=$(sed -n 's/^failed: \(.*\)/\1/p' "$out/arbiter-a.log" "$out/arbiter-b.log" \
        | sed 's/ rxa->rxb / rxe->java /; s/ rxb->rxa / java->rxe /' | case_names)
fi

# A capture of the RoCE traffic on the rxe end, when tcpdump is there (it is not one of the harness's packages).
cap_pid=
if command -v tcpdump > /dev/null && [ "${WIRE_INTEROP_PCAP:-1}" = 1 ]; then
    tcpdump -i "$RXE_IF" -nn -U -s 160 -c 50000 -w "$out/wire.pcap" udp port 4791 > "$out/tcpdump.log" 2>&1 &
    cap_pid=$!
fi

echo "== $(date +%T) $main rxe $RXE_DEV $idx $RXE_IP:$TCP_PORT  <->  (netns $NS) $main wire roce0 1"
timeout --kill-after=5 "$limit" "${java[@]}" "$main" rxe "$RXE_DEV" "$idx" "$RXE_IP:$TCP_PORT" "${hook_args[@]}" \
    > "$out/rxe.log" 2>&1 &
rpid=$!
follow "$out/rxe.log" "$rpid"
timeout --kill-after=5 "$limit" ip netns exec "$NS" "${java[@]}" "-Dverbs4j.emulated.roce=$JAVA_IP" "$main" wire roce0 1 \
    "$RXE_IP:$TCP_PORT" > "$out/wire.log" 2>&1 &
wpid=$!
rrc=0 wrc=0
wait "$rpid" || rrc=$?
wait "$wpid" || wrc=$?
echo "-- $(date +%T) rxe side (exit $rrc)"
cat "$out/rxe.log"
echo "-- wire side (exit $wrc)"
cat "$out/wire.log"
[ -n "$cap_pid" ] && kill "$cap_pid" 2>/dev/null
echo "-- UDP counters, root namespace and namespace $NS"
grep '^Udp:' /proc/net/snmp
ip netns exec "$NS" grep '^Udp:' /proc/net/snmp
ip -s link show "$RXE_IF"
echo "-- rxe1 counters"
for c in /sys/class/infiniband/$RXE_DEV/ports/1/hw_counters/*; do
    v=$(cat "$c" 2>/dev/null) && [ "$v" != 0 ] && echo "${c##*/} $v"
done

# ---------------------------------------------------------------- the connection manager over the wire
# C rdma_cm against the emulated provider's CM agent (issue 17): rdma-core's rping on rxe1 and examples' Rping on
# roce0 (netns wire), each way. The IB CM's REQ/REP/RTU/DREQ/DREP cross the veth between rxe1's QP1 and roce0's
# as GSI datagrams; then rping's exchange (SEND, RDMA READ, RDMA WRITE; -V checks the data) runs on the QPs they
# connected. WIRE_INTEROP_CM=0 (--env) skips it.
cm_pass=0 cm_fail=0
if [ "${WIRE_INTEROP_CM:-1}" = 1 ]; then
    ecp="examples/target/classes:$(cat examples/target/classpath.txt 2>/dev/null)"
    jw=(ip netns exec "$NS" java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1
        "-XX:ErrorFile=$out/hs_err_pid%p.log" -Dverbs4j.provider=emulated "-Dverbs4j.emulated.roce=$JAVA_IP" -cp "$ecp")
    # cm_pair NAME READY SERVER_OK CLIENT_OK -- SERVER... -- CLIENT...
    cm_pair() {
        local name=$1 ready=$2 sok=$3 cok=$4 server=() client=() spid src=0 crc=0 i
        shift 4
        [ "$1" = -- ] && shift
        while [ $# -gt 0 ] && [ "$1" != -- ]; do server+=("$1"); shift; done
        shift
        client=("$@")
        timeout "$((150 * ${VERBS4J_SLOWDOWN:-1000} / 1000))" "${server[@]}" > "$out/cm-$name-server.log" 2>&1 &
        spid=$!
        for ((i = 0; i < 750; i++)); do
            grep -q "$ready" "$out/cm-$name-server.log" 2>/dev/null && break
            kill -0 "$spid" 2>/dev/null || break
            sleep 0.2
        done
        sleep 1
        timeout "$((150 * ${VERBS4J_SLOWDOWN:-1000} / 1000))" "${client[@]}" > "$out/cm-$name-client.log" 2>&1 || crc=$?
        wait "$spid" || src=$?
        if ((src == 0 && crc == 0)) && grep -q "$sok" "$out/cm-$name-server.log" \
                && grep -q "$cok" "$out/cm-$name-client.log"; then
            echo "PASS cm $name"
            cm_pass=$((cm_pass + 1))
        else
            echo "FAIL cm $name: server rc=$src, client rc=$crc"
            sed 's/^/  server: /' "$out/cm-$name-server.log"
            sed 's/^/  client: /' "$out/cm-$name-client.log"
            cm_fail=$((cm_fail + 1))
        fi
    }
    cm_pair rping-server "rdma_listen" "server ping data: rdma-ping-4: " "5 pings of 64 bytes checked" \
        -- stdbuf -oL rping -s -d -v -a "$RXE_IP" -p 7474 \
        -- "${jw[@]}" org.verbs4j.examples.Rping client "$RXE_IP" 7474 5 64
    cm_pair rping-client "listening on" "5 pings served" "ping data: rdma-ping-4: " \
        -- "${jw[@]}" org.verbs4j.examples.Rping server 7475 \
        -- stdbuf -oL rping -c -v -V -a "$JAVA_IP" -p 7475 -C 5 -S 64
fi

summary=$(grep -h '^wire-interop: ' "$out/rxe.log" | tail -n 1)
cm_note=
[ "${WIRE_INTEROP_CM:-1}" = 1 ] && cm_note="; rdma_cm: $cm_pass of 2 rping pairs passed"
# A failed case that failed between rxe and rxe too is rxe's: listed, not counted.
main_failed=$(sed -n 's/^failed: \(.*\)/\1/p' "$out/rxe.log" "$out/wire.log" | case_names)
ours=$(comm -23 <(echo "$main_failed") <(echo "$arb_failed") | sed '/^$/d')
rxes=$(comm -12 <(echo "$main_failed") <(echo "$arb_failed") | sed '/^$/d')
arb_note=
if [ -n "$arb_failed" ] || [ "${WIRE_INTEROP_FAULTS:-1}" = 1 ]; then
    arb_note="; arbiter (rxe against rxe): $(echo "$arb_failed" | sed '/^$/d' | wc -l) case(s) failed"
    [ -n "$rxes" ] && arb_note+=", $(echo "$rxes" | wc -l) of them here too (rxe's, not counted)"
    [ -n "$arb_failed" ] && { echo "-- cases rxe fails against rxe"; echo "$arb_failed" | sed '/^$/d; s/^/  /'; }
fi
# Exit 1 is "some case failed"; anything else (a crash, the timeout) fails the step whatever the cases.
if [ "$rrc" -gt 1 ] || [ "$wrc" -gt 1 ] || [ -z "$summary" ] || [ -n "$ours" ] || ((cm_fail > 0)); then
    grep -h 'FAIL\|failed:\|Exception' "$out/rxe.log" "$out/wire.log" | head -n 40
    echo "FAIL: rxe side exit $rrc, wire side exit $wrc; ${summary:-no summary}$cm_note$arb_note" | tee "$out/note"
    exit 1
fi
echo "$summary$cm_note$arb_note" | tee "$out/note"
