package org.verbs4j.provider.emulated.verbs;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.verbs4j.Errno;
import org.verbs4j.Gid;

/**
 * A device's multicast groups, by multicast GID, each with the QPs attached to it, and the device's limits on them
 * as rxe keeps them ({@code rxe_mcast.c}): at most {@code max_mcast_grp} groups, {@code max_mcast_qp_attach} QPs in
 * one group and {@code max_total_mcast_qp_attach} attachments in all, each past which an attach is {@code ENOMEM}; a
 * QP attached again is attached once; a detach of a QP not in the group, or from a group that does not exist, is
 * {@code EINVAL}. A group exists from its first attach to its last detach. A device with limits 0 has no
 * multicast: every attach is {@code EOPNOTSUPP}.
 *
 * <p>The rules that come before the device (UD only, a multicast GID, the same (GID, LID) twice) are
 * {@link org.verbs4j.spi.support.MulticastAttachments}'. Delivery reads a group's members without locking and
 * without allocating: each change replaces the group's array.
 */
final class MulticastGroups {
    private static final EmulatedQueuePair[] NONE = new EmulatedQueuePair[0];

    private final int maxGroups;
    private final int maxQpPerGroup;
    private final int maxTotal;
    private final Map<Gid, EmulatedQueuePair[]> groups = new ConcurrentHashMap<>();
    /** Attachments in all groups, under this object's monitor. */
    private int total;

    MulticastGroups(int maxGroups, int maxQpPerGroup, int maxTotal) {
        this.maxGroups = maxGroups;
        this.maxQpPerGroup = maxQpPerGroup;
        this.maxTotal = maxTotal;
    }

    /** {@return {@code max_mcast_grp}} */
    int maxGroups() {
        return maxGroups;
    }

    /** {@return {@code max_mcast_qp_attach}} */
    int maxQpPerGroup() {
        return maxQpPerGroup;
    }

    /** {@return {@code max_total_mcast_qp_attach}} */
    int maxTotal() {
        return maxTotal;
    }

    /**
     * Attaches {@code qp} to the group {@code gid}, creating it; answers 0 or an errno: {@code EOPNOTSUPP} on a device
     * without multicast (as the kernel answers for a device with no {@code attach_mcast}).
     */
    synchronized int attach(EmulatedQueuePair qp, Gid gid) {
        if (maxQpPerGroup == 0) {
            return Errno.EOPNOTSUPP;
        }
        EmulatedQueuePair[] members = groups.get(gid);
        if (members == null) {
            if (groups.size() >= maxGroups) {
                return Errno.ENOMEM;
            }
            members = NONE;
        }
        for (EmulatedQueuePair m : members) {
            if (m == qp) {
                return 0;
            }
        }
        if (total >= maxTotal || members.length >= maxQpPerGroup) {
            return Errno.ENOMEM;
        }
        EmulatedQueuePair[] grown = Arrays.copyOf(members, members.length + 1);
        grown[members.length] = qp;
        groups.put(gid, grown);
        total++;
        return 0;
    }

    /** Detaches {@code qp} from the group {@code gid}, which goes with its last QP; answers 0 or an errno. */
    synchronized int detach(EmulatedQueuePair qp, Gid gid) {
        EmulatedQueuePair[] members = groups.get(gid);
        if (members == null) {
            return Errno.EINVAL;
        }
        for (int i = 0; i < members.length; i++) {
            if (members[i] == qp) {
                EmulatedQueuePair[] shrunk = new EmulatedQueuePair[members.length - 1];
                System.arraycopy(members, 0, shrunk, 0, i);
                System.arraycopy(members, i + 1, shrunk, i, members.length - i - 1);
                if (shrunk.length == 0) {
                    groups.remove(gid);
                } else {
                    groups.put(gid, shrunk);
                }
                total--;
                return 0;
            }
        }
        return Errno.EINVAL;
    }

    /** The QPs attached to the group {@code gid} now, possibly none; the caller must not change the array. */
    EmulatedQueuePair[] members(Gid gid) {
        EmulatedQueuePair[] members = groups.get(gid);
        return members == null ? NONE : members;
    }
}
