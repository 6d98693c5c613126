#!/bin/bash
# Guest step: the seeded differential workload on rxe0 through ffm and jnr, and on the emulator, with two
# seeds; every provider's completions and memory must equal every other's (see softroce/README.md for the
# contract). A hung run is stopped after VERBS4J_DIFFERENTIAL_TIMEOUT seconds so that later steps still run.
# The project is built on the host first.
# softroce-limit: 600
# (softroce/run's limit for this step, in quiet-machine seconds: some 3 times its time on a quiet host;
# the guest runner stretches it by the host's measured slowdown, see softroce/README.md "Time")
set -uo pipefail
export VERBS4J_JAVA_OPTS="-Dverbs4j.rdma.gidIndex=${VERBS4J_RDMA_GID_INDEX:-1} -XX:ErrorFile=$VERBS4J_STEP_OUT/hs_err_pid%p.log"
log="$VERBS4J_STEP_OUT/differential.txt"
echo "== verbs4j tck --differential --provider emulated,ffm,jnr on $VERBS4J_RDMA_DEVICE"
timeout "${VERBS4J_DIFFERENTIAL_TIMEOUT:-$((900 * ${VERBS4J_SLOWDOWN:-1000} / 1000))}" ./verbs4j tck --differential --provider emulated,ffm,jnr \
    -d "$VERBS4J_RDMA_DEVICE" --seed 0x5eed --seed 0xd1ff --operations 200 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
grep '^differential: ' "$log" | tail -n 1 > "$VERBS4J_STEP_OUT/note"
# The command skips an unavailable provider; on rxe0 both native ones must run, or the step proves nothing.
if [ "$status" = 0 ] && [ "$(grep -c '^ffm vs jnr: identical$' "$log")" != 2 ]; then
    echo "ffm vs jnr was not compared on both seeds: a native provider did not run (see above)" | tee "$VERBS4J_STEP_OUT/note"
    status=1
fi
exit "$status"
