package org.verbs4j.tools;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the command in this JVM: its exit code, stdout and stderr. */
public record Run(int exitCode, String out, String err) {
    public static Run of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** The non-empty lines of stderr. */
    public java.util.List<String> errLines() {
        return err.lines().filter(l -> !l.isBlank()).toList();
    }
}
