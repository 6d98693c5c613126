#!/bin/bash
# Guest step: the TCK against rxe0 through each native provider (see softroce/README.md for the contract).
# Failures listed in known-deviations.txt (rxe's own) and known-deviations-<provider>.txt are reported
# as KNOWN; any other failure fails the step. The project is built on the host first.
# softroce-limit: 1200
# (softroce/run's limit for this step, in quiet-machine seconds: some 3 times its time on a quiet host;
# the guest runner stretches it by the host's measured slowdown, see softroce/README.md "Time")
set -uo pipefail
export VERBS4J_JAVA_OPTS="-Dverbs4j.rdma.gidIndex=${VERBS4J_RDMA_GID_INDEX:-1} -XX:ErrorFile=$VERBS4J_STEP_OUT/hs_err_pid%p.log"
status=0
for provider in ffm jnr; do
    lists=(--known-deviations softroce/known-deviations.txt)
    if [ -f "softroce/known-deviations-$provider.txt" ]; then
        lists+=(--known-deviations "softroce/known-deviations-$provider.txt")
    fi
    echo "== verbs4j tck --provider $provider on $VERBS4J_RDMA_DEVICE"
    ./verbs4j tck --provider "$provider" -d "$VERBS4J_RDMA_DEVICE" --reports "$VERBS4J_JUNIT_DIR" "${lists[@]}" \
        || status=1
done
exit $status
