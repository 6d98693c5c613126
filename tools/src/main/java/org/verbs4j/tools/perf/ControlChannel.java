package org.verbs4j.tools.perf;

/**
 * The out-of-band link of a two-process run, carrying {@link PerftestWire}'s fixed-length messages: perftest's TCP
 * connection ({@link PerftestChannel}), or with {@code -R} an RC QP the connection manager connected
 * ({@link CmControlChannel}). In every exchange the client writes first and then reads, the server reads and then
 * writes, as perftest's {@code ctx_xchg_data}.
 */
interface ControlChannel extends AutoCloseable {
    /** Sends {@code mine} and returns the peer's message of the same length, in perftest's order. */
    default byte[] exchange(byte[] mine) {
        if (isClient()) {
            write(mine);
            return read(mine.length);
        }
        byte[] theirs = read(mine.length);
        write(mine);
        return theirs;
    }

    /** {@return whether this side is the client, which writes first} */
    boolean isClient();

    /** Sends one message. */
    void write(byte[] msg);

    /** Takes the peer's next message, which must be {@code n} bytes long. */
    byte[] read(int n);

    /** Whether the peer has sent something not yet read. */
    boolean hasInput();

    /** perftest's last words: "done", then the link ends. */
    void done();

    @Override
    void close();
}
