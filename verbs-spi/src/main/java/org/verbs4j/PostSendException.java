package org.verbs4j;

/**
 * {@code ibv_post_send} failed at a work request. The WRs before {@link #badWrIndex()} were posted
 * and will complete; the bad WR and every WR after it were not posted.
 *
 * @see "ibv_post_send(3)"
 */
public class PostSendException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The 0-based index of the first WR not posted. */
    private final int badWrIndex;

    /**
     * A failed {@code ibv_post_send}.
     *
     * @param errno the errno value
     * @param badWrIndex the 0-based index, in the posted list, of the first WR that failed ({@code bad_wr})
     * @param detail what was wrong, or null
     */
    public PostSendException(int errno, int badWrIndex, String detail) {
        super("ibv_post_send", errno, "bad_wr is WR #" + badWrIndex + (detail == null ? "" : ": " + detail));
        this.badWrIndex = badWrIndex;
    }

    /** {@return the 0-based index of the first WR that was not posted ({@code bad_wr})} */
    public int badWrIndex() {
        return badWrIndex;
    }
}
