package org.verbs4j.tools.perf;

/** How WRs are posted: the seed's {@code ibv_wr_*} session, or an {@code ibv_post_send} list. */
public enum PostApi {
    /** {@link org.verbs4j.WrSession}: {@code ibv_wr_start}, builders and setters, {@code ibv_wr_complete}. */
    WR,
    /** {@link org.verbs4j.QueuePair#postSend(java.util.List)}: a list of {@link org.verbs4j.SendWr}. */
    POST_SEND;

    public String cliName() {
        return this == WR ? "wr" : "post_send";
    }
}
