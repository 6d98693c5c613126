package org.verbs4j;

/**
 * {@code ibv_post_recv} or {@code ibv_post_srq_recv} failed at a work request. The WRs before
 * {@link #badWrIndex()} were posted; the bad WR and every WR after it were not.
 *
 * @see "ibv_post_recv(3)"
 * @see "ibv_post_srq_recv(3)"
 */
public class PostRecvException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The 0-based index of the first WR not posted. */
    private final int badWrIndex;

    /**
     * A failed receive post.
     *
     * @param verb {@code ibv_post_recv} or {@code ibv_post_srq_recv}
     * @param errno the errno value
     * @param badWrIndex the 0-based index of the first WR that failed ({@code bad_wr})
     * @param detail what was wrong, or null
     */
    public PostRecvException(String verb, int errno, int badWrIndex, String detail) {
        super(verb, errno, "bad_wr is WR #" + badWrIndex + (detail == null ? "" : ": " + detail));
        this.badWrIndex = badWrIndex;
    }

    /** {@return the 0-based index of the first WR that was not posted ({@code bad_wr})} */
    public int badWrIndex() {
        return badWrIndex;
    }
}
