#!/bin/bash
# Guest step for softroce/run: the plain-libibverbs rxe reproductions (c/rxe_quirks.c, built on the host:
#   gcc -O1 -Wall -o provider-ffm/target/rxe_quirks softroce/c/rxe_quirks.c -libverbs).
set -euo pipefail
exec provider-ffm/target/rxe_quirks "${VERBS4J_RDMA_DEVICE:-rxe0}"
