#!/bin/bash
# Guest step for softroce/run: bytes allocated per hot-path operation on rxe0 (see AllocationCheck).
# FFM_ALLOC_ARGS: warm-up and measured operation counts (default "20000 10000").
set -euo pipefail
M=provider-ffm/target
CP="$M/test-classes:$M/classes:$(cat "$M/guest-classpath.txt")"
# shellcheck disable=SC2086
exec java --enable-native-access=ALL-UNNAMED -cp "$CP" org.verbs4j.provider.ffm.AllocationCheck ${FFM_ALLOC_ARGS:-20000 10000}
