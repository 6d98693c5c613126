#!/bin/bash
# Guest step: the connection manager across processes and against C rdma_cm, on rxe0 (see softroce/README.md).
#
# Nine pairs, each end its own process, meeting at the rxe0 address of dummy0 (192.0.2.1) through the kernel's
# rdma_cm (the IB CM's REQ/REP/RTU/DREQ/DREP over rxe's QP1):
#   1. pingpong: examples' CmPingPong server and client, both on the FFM provider;
#   2. ucmatose-server: rdma-core's C ucmatose server (rdmacm-utils) and examples' Cmatose client (FFM);
#   3. ucmatose-client: examples' Cmatose server (FFM) and a C ucmatose client;
#   4. rping-server: rdma-core's C rping server and examples' Rping client (FFM);
#   5. rping-client: examples' Rping server (FFM) and a C rping client with -V (it checks each ping's data);
# then the JNR provider, one direction per tool to keep the step short under TCG:
#   6. jnr-pingpong: CmPingPong server on JNR, client on FFM (the two bindings' librdmacm calls meet);
#   7. jnr-ucmatose-server: the C ucmatose server and the Cmatose client on JNR;
#   8. jnr-rping-client: the Rping server on JNR and a C rping client with -V;
#   9. perf-R: `verbs4j perf write_bw -R` server on FFM and client on JNR: the control link and the test QP both
#      connected through rdma_cm, no TCP.
# ucmatose's exchange: once connected the server SENDs 10 messages of 100 bytes and the client answers with as
# many, then the server disconnects and the client answers the disconnect. rping's: per ping the client SENDs its
# source buffer's address and rkey, the server RDMA READs it and says go ahead, the client SENDs its sink, the
# server RDMA WRITEs the data there and says go ahead, the client compares; 5 pings of 64 bytes, then the client
# disconnects. A pair passes when both processes exit 0 and each printed its lines of success. The C tools run
# under stdbuf -oL so their lines reach the log as they print them. The JVMs start directly with C1 only (-XX:TieredStopAtLevel=1), as in
# perftest-interop.sh; the project is built on the host first (examples/target/classpath.txt).
# softroce-limit: 900
# (softroce/run's limit for this step, in quiet-machine seconds: some 3 times its time on a quiet host;
# the guest runner stretches it by the host's measured slowdown, see softroce/README.md "Time")
set -uo pipefail

out=${VERBS4J_STEP_OUT:-$PWD/target/cm-interop}
mkdir -p "$out"
addr=${VERBS4J_RDMA_IPV4:-192.0.2.1}
limit=${CM_INTEROP_LIMIT:-$((240 * ${VERBS4J_SLOWDOWN:-1000} / 1000))}
if [ ! -f examples/target/classpath.txt ] || [ ! -d examples/target/classes ]; then
    echo "FAIL: no examples/target/classes or classpath.txt: build on the host first (./mvnw -B -q package -DskipTests)"
    exit 1
fi
if ! command -v ucmatose >/dev/null || ! command -v rping >/dev/null; then
    echo "FAIL: ucmatose or rping is not installed (apt-get install rdmacm-utils)"
    exit 1
fi
jvm=(java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1
    "-XX:ErrorFile=$out/hs_err_pid%p.log" -cp "examples/target/classes:$(cat examples/target/classpath.txt)")
java=("${jvm[@]}" -Dverbs4j.provider=ffm)
jnr=("${jvm[@]}" -Dverbs4j.provider=jnr)
perf=(java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:TieredStopAtLevel=1
    "-XX:ErrorFile=$out/hs_err_pid%p.log" -cp "tools/target/classes:$(cat tools/target/classpath.txt 2>/dev/null)"
    org.verbs4j.tools.Main perf write_bw -R -d "${VERBS4J_RDMA_DEVICE:-rxe0}" -x "${VERBS4J_RDMA_GID_INDEX:-1}"
    -s 4096 -n 200 -p 7479)
pairs=9

# Waits until file $1 has a line matching $2, for at most $limit seconds, or until process $3 is gone.
wait_for() {
    local i
    for ((i = 0; i < 5 * limit; i++)); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}

pass=0 fail=0
# pair NAME SERVER_READY_PATTERN SERVER_OK CLIENT_OK -- SERVER... -- CLIENT...
pair() {
    local name=$1 ready=$2 server_ok=$3 client_ok=$4 server=() client=() spid src=0 crc=0 start
    shift 4
    [ "$1" = -- ] && shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do server+=("$1"); shift; done
    shift
    client=("$@")
    start=$SECONDS
    timeout "$limit" "${server[@]}" > "$out/$name-server.log" 2>&1 &
    spid=$!
    if ! wait_for "$out/$name-server.log" "$ready" "$spid"; then
        echo "FAIL $name: the server never got ready"; sed 's/^/  server: /' "$out/$name-server.log"
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
        fail=$((fail + 1)); return
    fi
    sleep 1 # the C tools print their line before they listen
    timeout "$limit" "${client[@]}" > "$out/$name-client.log" 2>&1 || crc=$?
    wait "$spid" || src=$?
    if ((src == 0 && crc == 0)) && grep -q "$server_ok" "$out/$name-server.log" \
            && grep -q "$client_ok" "$out/$name-client.log"; then
        echo "PASS $name ($((SECONDS - start)) s)"
        pass=$((pass + 1))
    else
        echo "FAIL $name: server rc=$src, client rc=$crc"
        sed 's/^/  server: /' "$out/$name-server.log"
        sed 's/^/  client: /' "$out/$name-client.log"
        fail=$((fail + 1))
    fi
}

pair pingpong "listening on" "client: ping-pong client" "pong 2" \
    -- "${java[@]}" org.verbs4j.examples.CmPingPong server 7471 3 \
    -- "${java[@]}" org.verbs4j.examples.CmPingPong client "$addr" 7471 3
pair ucmatose-server "starting server" "data transfers complete" "10 messages of 100 bytes received and 10 sent" \
    -- stdbuf -oL ucmatose -p 7472 \
    -- "${java[@]}" org.verbs4j.examples.Cmatose client "$addr" 7472 10 100
pair ucmatose-client "listening on" "10 messages of 100 bytes sent and 10 received" "data transfers complete" \
    -- "${java[@]}" org.verbs4j.examples.Cmatose server 7473 10 100 \
    -- stdbuf -oL ucmatose -s "$addr" -p 7473
pair rping-server "rdma_listen" "server ping data: rdma-ping-4: " "5 pings of 64 bytes checked" \
    -- stdbuf -oL rping -s -d -v -a "$addr" -p 7474 \
    -- "${java[@]}" org.verbs4j.examples.Rping client "$addr" 7474 5 64
pair rping-client "listening on" "5 pings served" "ping data: rdma-ping-4: " \
    -- "${java[@]}" org.verbs4j.examples.Rping server 7475 \
    -- stdbuf -oL rping -c -v -V -a "$addr" -p 7475 -C 5 -S 64
pair jnr-pingpong "listening on" "client: ping-pong client" "pong 2" \
    -- "${jnr[@]}" org.verbs4j.examples.CmPingPong server 7476 3 \
    -- "${java[@]}" org.verbs4j.examples.CmPingPong client "$addr" 7476 3
pair jnr-ucmatose-server "starting server" "data transfers complete" "10 messages of 100 bytes received and 10 sent" \
    -- stdbuf -oL ucmatose -p 7477 \
    -- "${jnr[@]}" org.verbs4j.examples.Cmatose client "$addr" 7477 10 100
pair jnr-rping-client "listening on" "5 pings served" "ping data: rdma-ping-4: " \
    -- "${jnr[@]}" org.verbs4j.examples.Rping server 7478 \
    -- stdbuf -oL rping -c -v -V -a "$addr" -p 7478 -C 5 -S 64

pair perf-R "Waiting for client to connect" "^ 4096 *200 " "^ 4096 *200 " \
    -- "${perf[@]}" --provider ffm --server \
    -- "${perf[@]}" --provider jnr "$addr"

echo "cm-interop: $pass passed, $fail failed"
[ -n "${VERBS4J_STEP_OUT:-}" ] && echo "$pass of $pairs pairs passed (CmPingPong; C ucmatose and rping, each way on ffm, one way each on jnr; perf -R ffm/jnr)" \
    > "$VERBS4J_STEP_OUT/note"
((fail == 0))
