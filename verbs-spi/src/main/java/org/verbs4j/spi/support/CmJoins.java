package org.verbs4j.spi.support;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.verbs4j.AhAttributes;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;

/**
 * The multicast groups one {@link AbstractCmId} joined and has not left, in join order, each with the context its
 * events carry and, once its join event attached the id's QP, the QP and the (MGID, MLID) it is attached to:
 * librdmacm's list of a {@code struct cma_id_private}'s {@code cma_multicast}. Guarded by the id's lock.
 *
 * @see "rdma_join_multicast(3)"
 * @see "rdma_leave_multicast(3)"
 */
final class CmJoins {
    /** A join: its context, whether it is send-only, and what its event attached. */
    private static final class Join {
        final long context;
        final boolean sendOnly;
        /** The QP the join attached, or null. */
        QueuePair attached;
        Gid mgid;
        int mlid;

        Join(long context, boolean sendOnly) {
            this.context = context;
            this.sendOnly = sendOnly;
        }
    }

    private final Map<InetAddress, Join> joined = new LinkedHashMap<>();
    /** The context of the next join, so that its event names it. */
    private long nextContext = 1;

    /**
     * {@return the context of a new join of {@code group}, not recorded until {@link #add}}
     *
     * @throws VerbsException {@code EADDRINUSE} if the id already joined the group
     */
    long next(InetAddress group) {
        if (joined.containsKey(group)) {
            throw new VerbsException("rdma_join_multicast", Errno.EADDRINUSE, "the id already joined "
                    + group.getHostAddress() + ": leave it first");
        }
        return nextContext++;
    }

    /** Records a join the connection manager started. */
    void add(InetAddress group, long context, boolean sendOnly) {
        joined.put(group, new Join(context, sendOnly));
    }

    /** {@return the group of a join not left, by its context; null for one left since} */
    InetAddress group(long context) {
        for (Map.Entry<InetAddress, Join> e : joined.entrySet()) {
            if (e.getValue().context == context) {
                return e.getKey();
            }
        }
        return null;
    }

    /**
     * Attaches {@code qp}, if not null and the join of {@code group} is not send-only, to the (MGID, MLID) of the
     * join event's address vector, as librdmacm's {@code ucma_process_join} does.
     *
     * @return 0, or the negative errno of {@code ibv_attach_mcast}
     */
    int attach(InetAddress group, QueuePair qp, AhAttributes ah) {
        Join j = joined.get(group);
        if (j == null || j.sendOnly || qp == null || ah.grh() == null) {
            return 0;
        }
        try {
            qp.attachMulticast(ah.grh().dgid(), ah.dlid());
        } catch (VerbsException e) {
            return -e.errno();
        }
        j.attached = qp;
        j.mgid = ah.grh().dgid();
        j.mlid = ah.dlid();
        return 0;
    }

    /**
     * Checks that {@code group} is joined, detaches the QP its join attached if that is still {@code qp}, the id's
     * QP (one destroyed since was detached by its destruction), and forgets the join. If the detach fails, the
     * group stays joined.
     *
     * @throws VerbsException {@code EADDRNOTAVAIL} if the group is not joined; the errors of
     *     {@code ibv_detach_mcast}
     */
    void leave(InetAddress group, QueuePair qp) {
        Join j = joined.get(group);
        if (j == null) {
            throw new VerbsException("rdma_leave_multicast", Errno.EADDRNOTAVAIL, "the id has not joined "
                    + group.getHostAddress());
        }
        if (j.attached != null && j.attached == qp) {
            qp.detachMulticast(j.mgid, j.mlid);
        }
        joined.remove(group);
    }

    /** {@return whether {@code group} is joined} */
    boolean contains(InetAddress group) {
        return joined.containsKey(group);
    }

    /** Forgets every join: the id is destroyed, and the connection manager leaves its groups. */
    void clear() {
        joined.clear();
    }
}
