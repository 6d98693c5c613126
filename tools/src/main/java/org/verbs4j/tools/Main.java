package org.verbs4j.tools;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.tools.cli.ExitCodes;
import org.verbs4j.tools.cli.Messages;
import org.verbs4j.tools.cli.UsageException;
import org.verbs4j.tools.devinfo.DevinfoCommand;
import org.verbs4j.tools.perf.PerfCommand;
import org.verbs4j.tools.tck.TckCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code verbs4j} command: {@code devinfo}, {@code perf} and {@code tck}.
 *
 * <p>Exit codes: 0 on success, 1 when a run fails (a TCK failure, a verbs error during a test), 2 for bad
 * input (unknown flags, impossible values, an unavailable provider, a missing device). Errors are one line
 * on stderr; set {@code VERBS4J_DEBUG=1} to get the stack trace as well.
 */
@Command(name = "verbs4j", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "RDMA verbs for Java: device information, perftest-style benchmarks and the TCK.",
        subcommands = {DevinfoCommand.class, PerfCommand.class, TckCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    /** The exit code of a successful run. */
    public static final int EXIT_OK = ExitCodes.OK;
    /** The exit code of a run that failed: a TCK failure, or a verbs error during a benchmark. */
    public static final int EXIT_FAILURE = ExitCodes.FAILURE;
    /** The exit code of bad input. */
    public static final int EXIT_USAGE = ExitCodes.USAGE;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The top-level command; picocli fills in its spec. {@link #run(PrintWriter, PrintWriter, String...)} runs it. */
    public Main() {}

    /** Run without a command: a usage error that names the commands. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "a command is needed: devinfo, perf or tck (see verbs4j --help)");
    }

    /**
     * The {@code verbs4j} command: runs and exits the JVM with the exit code.
     *
     * @param args the command line, e.g. {@code perf write_bw -s 64}
     */
    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /**
     * Runs the command with the given streams and returns its exit code; never calls {@link System#exit}.
     *
     * @param out where results go (the tables, device information)
     * @param err where one-line errors and progress go
     * @param args the command line, e.g. {@code perf write_bw -s 64}
     * @return {@link #EXIT_OK}, {@link #EXIT_FAILURE} or {@link #EXIT_USAGE}
     */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        // JFreeChart draws through AWT; there is no display on a server or in CI.
        System.setProperty("java.awt.headless", "true");
        quietLogging();
        return commandLine(out, err).execute(args);
    }

    /**
     * The configured picocli command line, for tests and {@link #run(PrintWriter, PrintWriter, String...)}.
     *
     * @param out the command's standard output
     * @param err the command's error output
     * @return a command line whose errors print as one line on {@code err} and map to the exit codes
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, args) -> {
            ex.getCommandLine().getErr().println("verbs4j: " + oneLine(unknownCommand(ex).orElse(ex.getMessage())));
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            PrintWriter e = commandLine.getErr();
            if (System.getenv("VERBS4J_DEBUG") != null) {
                ex.printStackTrace(e);
            }
            e.println("verbs4j: " + oneLine(describe(ex)));
            return exitCodeOf(ex);
        });
        return cl;
    }

    /**
     * "unknown command 'X'" for a first word that is no command, instead of picocli's "Unmatched argument at
     * index 0"; options (words that start with '-') keep picocli's own "Unknown option" message.
     */
    static Optional<String> unknownCommand(CommandLine.ParameterException ex) {
        if (ex instanceof CommandLine.UnmatchedArgumentException u && u.getCommandLine().getParent() == null
                && !u.isUnknownOption() && !u.getUnmatched().isEmpty()
                && u.getCommandLine().getParseResult().originalArgs().indexOf(u.getUnmatched().getFirst()) == 0) {
            return Optional.of("unknown command '" + u.getUnmatched().getFirst() + "'; the commands are "
                    + String.join(", ", u.getCommandLine().getSubcommands().keySet()) + " (see verbs4j --help)");
        }
        return Optional.empty();
    }

    static int exitCodeOf(Throwable ex) {
        return switch (ex) {
            case UsageException u -> EXIT_USAGE;
            case ProviderUnavailableException p -> EXIT_USAGE;
            case IllegalArgumentException i -> EXIT_USAGE;
            case CommandLine.ParameterException p -> EXIT_USAGE;
            default -> EXIT_FAILURE;
        };
    }

    private static String describe(Throwable ex) {
        String msg = ex.getMessage();
        // verbs4j's own exceptions and argument errors say what went wrong; others need their type to make sense.
        if (msg != null && (ex.getClass().getPackageName().startsWith("org.verbs4j")
                || ex instanceof IllegalArgumentException || ex instanceof java.io.UncheckedIOException)) {
            return msg;
        }
        return ex.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }

    private static String oneLine(String message) {
        return Messages.oneLine(message);
    }

    /** Held so that the level set on it is not lost when an unreferenced logger is collected. */
    private static final Logger VERBS_LOG = Logger.getLogger("org.verbs4j");

    /**
     * Provider selection logs its choice, and a failed selection, through {@link System.Logger}; the commands
     * print both themselves (devinfo lists every provider with its cause), so the log stays quiet unless
     * {@code VERBS4J_DEBUG} is set.
     */
    private static void quietLogging() {
        if (System.getenv("VERBS4J_DEBUG") == null) {
            VERBS_LOG.setLevel(Level.OFF);
        }
    }

    /** The version for {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"verbs4j " + Messages.version(),
                    "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
