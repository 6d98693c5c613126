package org.verbs4j;

import java.util.Objects;

/**
 * A receive work request, {@code struct ibv_recv_wr}. Mutable and reusable; a list of them is posted
 * with {@link QueuePair#postRecv(java.util.List)} or {@link SharedReceiveQueue#postRecv(java.util.List)}.
 *
 * @see "ibv_post_recv(3)"
 */
public final class RecvWr {
    private static final Sge[] NONE = new Sge[0];

    private long wrId;
    private Sge[] sgList = NONE;
    private int numSge;

    /** A receive with no SGEs and work request ID 0. */
    public RecvWr() {}

    /**
     * A receive of one SGE.
     *
     * @param wrId the ID returned in the completion
     * @param sge the buffer to receive into
     */
    public RecvWr(long wrId, Sge sge) {
        this.wrId = wrId;
        sgList(sge);
    }

    /** {@return the 64-bit ID returned in the completion} */
    public long wrId() {
        return wrId;
    }

    /**
     * Sets the ID returned in the completion.
     *
     * @param wrId any 64-bit value
     * @return this
     */
    public RecvWr wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** {@return the scatter list; only the first {@link #numSge()} entries count} */
    public Sge[] sgList() {
        return sgList;
    }

    /** {@return how many entries of {@link #sgList()} are the scatter list ({@code num_sge})} */
    public int numSge() {
        return numSge;
    }

    /**
     * Uses all of {@code sges} as the scatter list (the array is kept, not copied).
     *
     * @param sges the scatter list
     * @return this
     * @throws NullPointerException if {@code sges} is null
     */
    public RecvWr sgList(Sge... sges) {
        return sgList(sges, sges.length);
    }

    /**
     * Uses the first {@code count} entries of {@code sges} (the array is kept, not copied).
     *
     * @param sges the array holding the scatter list
     * @param count how many of its entries are the scatter list ({@code num_sge})
     * @return this
     * @throws NullPointerException if {@code sges} is null
     * @throws IllegalArgumentException if {@code count} is negative or more than the array's length
     */
    public RecvWr sgList(Sge[] sges, int count) {
        Objects.requireNonNull(sges, "sgList");
        if (count < 0 || count > sges.length) {
            throw new IllegalArgumentException("numSge " + count + " is outside the " + sges.length + "-entry list");
        }
        for (int i = 0; i < count; i++) {
            if (sges[i] == null) {
                throw new NullPointerException("sgList[" + i + "] is null");
            }
        }
        this.sgList = sges;
        this.numSge = count;
        return this;
    }
}
