#!/bin/bash
# Guest-step example: softroce/run --guest-script softroce/examples/java-devices.sh
# Shows the contract: cwd is the project dir, JAVA_HOME is set, JUnit XML goes
# to $VERBS4J_JUNIT_DIR, the exit code is the step's result.
set -euo pipefail
java -version 2>&1 | head -n 1
# Single-file source launch: compiles in memory, nothing is written to the
# (read-only) project dir.
exec java --enable-native-access=ALL-UNNAMED softroce/examples/IbvDevices.java
