# shellcheck shell=bash
# scripts/jdk.sh: finds a JDK 22 or newer. Sourced by ./verbs4j and scripts/test, so that the launcher
# and the test command pick the same JDK on the same machine.
#
# Defines MIN_JDK and the functions java_release, home_release, usable_jdk and find_jdk. find_jdk prints
# the JDK home it chose: JAVA_HOME when it is a JDK 22+, else the newest JDK 22+ among the usual install
# places (or among the directories given as arguments), else the JDK of the javac on PATH when it is 22+.
# It returns 1 when there is none. A JRE does not count: Maven needs javac.

MIN_JDK=22

# The feature release of a java executable (8 for 1.8, 25 for 25.0.1), or nothing if it does not run.
java_release() {
    local v
    v="$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1)"
    v="${v#1.}"
    [[ "$v" =~ ^[0-9]+$ ]] && echo "$v"
}

# The feature release of a JDK home: from its 'release' file, which costs no JVM start, else by running it.
home_release() {
    local v=""
    if [[ -f "$1/release" ]]; then
        v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release" | head -n1)"
        v="${v#1.}"
        v="${v%%[.+-]*}"
    fi
    if [[ "$v" =~ ^[0-9]+$ ]]; then
        echo "$v"
    else
        java_release "$1/bin/java"
    fi
}

# A java that is at least MIN_JDK and comes with javac (Maven needs a JDK, not a JRE).
usable_jdk() {
    local home="$1" release
    [[ -x "$home/bin/java" && -x "$home/bin/javac" ]] || return 1
    release="$(home_release "$home")" || return 1
    (( release >= MIN_JDK ))
}

# find_jdk [CANDIDATE_HOME...]: without arguments the candidates are the usual install places.
find_jdk() {
    local candidate best="" best_release=0 release candidates=("$@")
    if [[ -n "${JAVA_HOME:-}" ]] && usable_jdk "$JAVA_HOME"; then
        echo "$JAVA_HOME"
        return
    fi
    if (( ${#candidates[@]} == 0 )); then
        candidates=(/usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*
            "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home)
    fi
    # Newest first among the install places.
    for candidate in "${candidates[@]}"; do
        [[ -d "$candidate" ]] || continue
        if usable_jdk "$candidate"; then
            release="$(home_release "$candidate")"
            if (( release > best_release )); then
                best="$candidate"
                best_release="$release"
            fi
        fi
    done
    if [[ -n "$best" ]]; then
        echo "$best"
        return
    fi
    if command -v javac >/dev/null 2>&1; then
        candidate="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
        if usable_jdk "$candidate"; then
            echo "$candidate"
            return
        fi
    fi
    return 1
}

# The message for when find_jdk finds nothing.
no_jdk_message() {
    echo "needs a JDK ${MIN_JDK} or newer (java.lang.foreign is final from ${MIN_JDK}), and none was found in JAVA_HOME${JAVA_HOME:+ ($JAVA_HOME)}, /usr/lib/jvm or on PATH; install one (e.g. apt-get install openjdk-25-jdk-headless) or set JAVA_HOME to it"
}

# java_options JDK_HOME: the options every launcher here gives the JVM, one a line: native access for the FFM
# provider and, on JDK 24+, sun.misc.Unsafe memory access, which the JNR provider's jffi uses and which those
# JDKs otherwise warn about on every run.
java_options() {
    echo "--enable-native-access=ALL-UNNAMED"
    if (( $(home_release "$1") >= 24 )); then
        echo "--sun-misc-unsafe-memory-access=allow"
    fi
}

# maven_opts JDK_HOME: MAVEN_OPTS for running Maven on that JDK. Maven's own Guice uses sun.misc.Unsafe, which
# JDK 24+ warns about on every run; that is not ours to fix, so the warning is turned off as for our own JVMs.
maven_opts() {
    local opts="${MAVEN_OPTS:-}"
    if (( $(home_release "$1") >= 24 )); then
        opts="${opts:+$opts }--sun-misc-unsafe-memory-access=allow"
    fi
    echo "$opts"
}
