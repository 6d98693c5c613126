#!/bin/bash
# Guest step: the emulated provider's RoCE v2 wire device against the kernel's rxe, over a veth pair.
#
#   root namespace                            namespace "wire"
#   rxe1 on veth vrxe 10.79.0.1  <-- veth -->  vjava 10.79.0.2, roce0 (a JVM with -Dverbs4j.emulated.roce)
#
# rxe binds UDP 4791 on every address of its namespace, so the Java end needs a namespace of its own. rxe0 on
# dummy0 stays as it is; rxe1 is a second rxe device on the veth end. Two JVMs run
# org.verbs4j.tools.interop.WireInterop (tools' test classes): role rxe through the FFM provider, role wire
# through the emulated provider; they meet over TCP across the veth and run every case in both directions
# (see the class). Role rxe calls this script back as its hook, "wire-interop.sh loss|reorder|none",
# to put netem on the Java side's veth end for the lossy phases. The step fails if any case fails on either
# side; its note is the one-line summary. Build on the host first (tools' test classes and its jar).
# softroce-limit: 900
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

# Role rxe's hook: "wire-interop.sh MODE".
if [ $# -gt 0 ]; then
    case $1 in
        loss) qdisc=(netem loss 5%) ;;
        reorder) qdisc=(netem delay 1ms reorder 25% 50%) ;;
        none) exec ip netns exec "$NS" tc qdisc del dev "$JAVA_IF" root ;;
        *) echo "usage: wire-interop.sh [loss|reorder|none]" >&2; exit 2 ;;
    esac
    echo "+ tc qdisc replace dev $JAVA_IF root ${qdisc[*]} (namespace $NS)"
    exec ip netns exec "$NS" tc qdisc replace dev "$JAVA_IF" root "${qdisc[@]}"
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
hook_args=("$hook")
[ "${WIRE_INTEROP_LOSSY:-1}" = 1 ] || hook_args=()

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
if [ "$rrc" != 0 ] || [ "$wrc" != 0 ] || [ -z "$summary" ] || ((cm_fail > 0)); then
    grep -h 'FAIL\|failed:\|Exception' "$out/rxe.log" "$out/wire.log" | head -n 40
    echo "FAIL: rxe side exit $rrc, wire side exit $wrc; ${summary:-no summary}$cm_note" | tee "$out/note"
    exit 1
fi
echo "$summary$cm_note" | tee "$out/note"
