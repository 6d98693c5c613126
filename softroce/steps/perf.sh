#!/bin/bash
# Guest step: verbs4j perf through the FFM provider on rxe0, the same tests and sizes as the perftest step
# (ib_write_bw 4 KiB, ib_send_lat 2 B), so the two can be read side by side.
# softroce-limit: 600
# (softroce/run's limit for this step, in quiet-machine seconds: some 3 times its time on a quiet host;
# the guest runner stretches it by the host's measured slowdown, see softroce/README.md "Time")
set -euo pipefail
gid=${VERBS4J_RDMA_GID_INDEX:-1}
./verbs4j perf write_bw --provider ffm -d "$VERBS4J_RDMA_DEVICE" -x "$gid" -s 4096 -n 2000 \
    --json "$VERBS4J_STEP_OUT/write_bw.json"
./verbs4j perf send_lat --provider ffm -d "$VERBS4J_RDMA_DEVICE" -x "$gid" -s 2 -n 500 \
    --json "$VERBS4J_STEP_OUT/send_lat.json"
