package org.verbs4j.tools.cli;

/** Text helpers for the command's one-line messages. */
public final class Messages {
    private Messages() {}

    /** Folds a multi-line message into one line, so errors stay one line in logs. */
    public static String oneLine(String message) {
        if (message == null) {
            return "unknown error";
        }
        return message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }

    /** The verbs4j version: from the jar's manifest, or the module's version, or {@code development}. */
    public static String version() {
        String v = Messages.class.getPackage().getImplementationVersion();
        if (v == null && Messages.class.getModule().getDescriptor() != null) {
            v = Messages.class.getModule().getDescriptor().rawVersion().orElse(null);
        }
        return v == null ? "development" : v;
    }
}
