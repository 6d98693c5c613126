# Sourced by the guest scripts: the test class path of provider-jnr from the compiled classes and the
# local Maven repository (read-only in the guest), in $CP.
PROJECT=${VERBS4J_PROJECT_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)}
REPO=${VERBS4J_M2_REPO:-/root/.m2/repository}
ASM=9.7.1
JARS=(
  com/github/jnr/jnr-ffi/2.2.17/jnr-ffi-2.2.17.jar
  com/github/jnr/jffi/1.3.13/jffi-1.3.13.jar
  com/github/jnr/jffi/1.3.13/jffi-1.3.13-native.jar
  com/github/jnr/jnr-a64asm/1.0.0/jnr-a64asm-1.0.0.jar
  com/github/jnr/jnr-x86asm/1.0.2/jnr-x86asm-1.0.2.jar
  org/ow2/asm/asm/$ASM/asm-$ASM.jar
  org/ow2/asm/asm-commons/$ASM/asm-commons-$ASM.jar
  org/ow2/asm/asm-analysis/$ASM/asm-analysis-$ASM.jar
  org/ow2/asm/asm-tree/$ASM/asm-tree-$ASM.jar
  org/ow2/asm/asm-util/$ASM/asm-util-$ASM.jar
  org/junit/jupiter/junit-jupiter-api/5.13.4/junit-jupiter-api-5.13.4.jar
  org/junit/jupiter/junit-jupiter-engine/5.13.4/junit-jupiter-engine-5.13.4.jar
  org/junit/jupiter/junit-jupiter-params/5.13.4/junit-jupiter-params-5.13.4.jar
  org/junit/platform/junit-platform-commons/1.13.4/junit-platform-commons-1.13.4.jar
  org/junit/platform/junit-platform-engine/1.13.4/junit-platform-engine-1.13.4.jar
  org/junit/platform/junit-platform-launcher/1.13.4/junit-platform-launcher-1.13.4.jar
  org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar
  org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2.jar
  org/openjdk/jmh/jmh-core/1.37/jmh-core-1.37.jar
  net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar
  org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.jar
)
# VERBS4J_JNR_BUILD names a copy of the project's target directories (see snapshot-build), so that a
# long guest run is not disturbed by rebuilding on the host meanwhile.
BUILD=${VERBS4J_JNR_BUILD:-$PROJECT}
CP=$BUILD/provider-jnr/target/test-classes:$BUILD/provider-jnr/target/classes:$BUILD/verbs-spi/target/classes
for d in tck/target/classes provider-emulated/target/classes provider-ffm/target/classes emuverbs/target/classes; do
    if [ -d "$BUILD/$d" ]; then CP=$CP:$BUILD/$d; fi
done
for j in "${JARS[@]}"; do
    [ -f "$REPO/$j" ] || { echo "missing $REPO/$j"; exit 2; }
    CP=$CP:$REPO/$j
done
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
