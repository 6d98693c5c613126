package org.verbs4j.spi.support;

import java.util.AbstractList;
import java.util.Objects;
import java.util.RandomAccess;
import org.verbs4j.QueuePair;
import org.verbs4j.SendWr;

/**
 * A {@link org.verbs4j.PreparedSends} for a provider with no native slots (the emulated one): the slots are
 * the mirror's {@link SendWr}s, and a post hands the first n of them, as a list view made once, to
 * {@link QueuePair#postSend(java.util.List)}, which applies every rule of {@code ibv_post_send(3)}, takes the
 * QP's send lock and reports the first refused slot's index. Allocates nothing per post.
 */
public final class ListPreparedSends extends AbstractPreparedSends {
    private final QueuePair qp;
    private final Prefix prefix = new Prefix();

    /**
     * Makes the array for {@code qp}, with room for its {@code max_send_sge} SGEs per slot.
     *
     * @param qp the QP, open
     * @param capacity the number of slots, 1 to {@value AbstractPreparedSends#MAX_CAPACITY}
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public ListPreparedSends(QueuePair qp, int capacity) {
        super(qp.type(), capacity, qp.initAttributes().cap().maxSendSge());
        this.qp = qp;
    }

    @Override
    protected void postSlots(int n) {
        prefix.size = n;
        qp.postSend(prefix);
    }

    /** The first {@code size} slots. */
    private final class Prefix extends AbstractList<SendWr> implements RandomAccess {
        int size;

        @Override
        public SendWr get(int index) {
            return slotWr(Objects.checkIndex(index, size));
        }

        @Override
        public int size() {
            return size;
        }
    }
}
