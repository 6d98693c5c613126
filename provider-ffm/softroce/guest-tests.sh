#!/bin/bash
# Guest step for softroce/run: runs JUnit classes of provider-ffm against rxe0 without Maven.
#   ./mvnw -B -q -pl provider-ffm -am test-compile dependency:build-classpath \
#       -Dmdep.outputFile=target/guest-classpath.txt -Dmdep.includeScope=test
#   softroce/run --env FFM_TESTS="org.verbs4j.provider.ffm.FfmRxeLoopbackTest" \
#       --guest-script provider-ffm/softroce/guest-tests.sh
# FFM_TESTS: space-separated class names or package:NAME (default: the loopback test).
set -euo pipefail
M=provider-ffm/target
CP="$M/test-classes:$M/classes:$(cat "$M/guest-classpath.txt")"
# shellcheck disable=SC2086
exec java --enable-native-access=ALL-UNNAMED ${FFM_JAVA_OPTS:-} -cp "$CP" org.verbs4j.provider.ffm.FfmGuestTestMain \
    ${FFM_TESTS:-org.verbs4j.provider.ffm.FfmRxeLoopbackTest}
