package org.verbs4j.provider.emulated.engine;

/** Where the engine writes completions: a completion queue. */
public interface CompletionSink {
    /**
     * Adds a completion ({@code ibv_wc} fields).
     *
     * @param solicited whether the message asked for a solicited event
     * @return false if the CQ overflowed and the completion was lost
     */
    boolean add(long wrId, int status, int opcode, int byteLen, int immData, int qpNum, int srcQp, int wcFlags,
                boolean solicited);
}
