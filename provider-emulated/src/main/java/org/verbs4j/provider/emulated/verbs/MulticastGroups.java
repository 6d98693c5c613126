package org.verbs4j.provider.emulated.verbs;

import java.lang.ref.WeakReference;
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
 * <p>A wire device's groups are also its {@link NetworkLink}'s: the link joins a group when it comes to exist here
 * (its first attach, which fails with the link's errno if the link cannot join) and leaves it when it goes (its last
 * detach, the close of its last QP, or, for a group whose last QP was collected unclosed, the next attach or detach
 * on the device).
 *
 * <p>The rules that come before the device (UD only, a multicast GID, the same (GID, LID) twice) are
 * {@link org.verbs4j.spi.support.MulticastAttachments}'. Delivery reads a group's members without locking and
 * without allocating: each change replaces the group's array.
 */
final class MulticastGroups {
    @SuppressWarnings("unchecked")
    private static final WeakReference<EmulatedQueuePair>[] NONE = new WeakReference[0];

    private final int maxGroups;
    private final int maxQpPerGroup;
    private final int maxTotal;
    /** The wire device's way onto the network, which receives the groups' datagrams; null on an in-JVM device. */
    private final NetworkLink link;
    /**
     * The members of each group, held weakly: a context dropped unclosed must be collected with its QPs, attached or
     * not, as {@link org.verbs4j.provider.emulated.engine.QpnTable} holds them. A collected member no longer gets
     * deliveries, and goes, no longer counting against the limits, at the next change of the groups.
     */
    private final Map<Gid, WeakReference<EmulatedQueuePair>[]> groups = new ConcurrentHashMap<>();
    /** Attachments in all groups, under this object's monitor. */
    private int total;

    /**
     * A device's groups, none yet.
     *
     * @param link the wire device's link, which joins and leaves the groups; null for an in-JVM device
     */
    MulticastGroups(int maxGroups, int maxQpPerGroup, int maxTotal, NetworkLink link) {
        this.maxGroups = maxGroups;
        this.maxQpPerGroup = maxQpPerGroup;
        this.maxTotal = maxTotal;
        this.link = link;
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

    /** Drops the collected members of every group, and the groups left empty; under this object's monitor. */
    private void prune() {
        for (Map.Entry<Gid, WeakReference<EmulatedQueuePair>[]> e : groups.entrySet()) {
            WeakReference<EmulatedQueuePair>[] members = e.getValue();
            int live = 0;
            for (WeakReference<EmulatedQueuePair> m : members) {
                if (m.get() != null) {
                    live++;
                }
            }
            if (live == members.length) {
                continue;
            }
            total -= members.length - live;
            if (live == 0) {
                remove(e.getKey());
                continue;
            }
            WeakReference<EmulatedQueuePair>[] kept = Arrays.copyOf(NONE, live);
            int k = 0;
            for (WeakReference<EmulatedQueuePair> m : members) {
                if (m.get() != null) {
                    kept[k++] = m;
                }
            }
            groups.put(e.getKey(), kept);
        }
    }

    /**
     * Attaches {@code qp} to the group {@code gid}, creating it; answers 0 or an errno: {@code EOPNOTSUPP} on a device
     * without multicast (as the kernel answers for a device with no {@code attach_mcast}).
     */
    synchronized int attach(EmulatedQueuePair qp, Gid gid) {
        if (maxQpPerGroup == 0) {
            return Errno.EOPNOTSUPP;
        }
        prune();
        WeakReference<EmulatedQueuePair>[] members = groups.get(gid);
        if (members == null) {
            if (groups.size() >= maxGroups || total >= maxTotal) {
                return Errno.ENOMEM;
            }
            int joined = link == null ? 0 : link.joinGroup(gid);
            if (joined != 0) {
                return joined;
            }
            members = NONE;
        }
        for (WeakReference<EmulatedQueuePair> m : members) {
            if (m.get() == qp) {
                return 0;
            }
        }
        if (total >= maxTotal || members.length >= maxQpPerGroup) {
            return Errno.ENOMEM;
        }
        WeakReference<EmulatedQueuePair>[] grown = Arrays.copyOf(members, members.length + 1);
        grown[members.length] = new WeakReference<>(qp);
        groups.put(gid, grown);
        total++;
        return 0;
    }

    /** Detaches {@code qp} from the group {@code gid}, which goes with its last QP; answers 0 or an errno. */
    synchronized int detach(EmulatedQueuePair qp, Gid gid) {
        prune();
        WeakReference<EmulatedQueuePair>[] members = groups.get(gid);
        if (members == null) {
            return Errno.EINVAL;
        }
        for (int i = 0; i < members.length; i++) {
            if (members[i].get() == qp) {
                WeakReference<EmulatedQueuePair>[] shrunk = Arrays.copyOf(NONE, members.length - 1);
                System.arraycopy(members, 0, shrunk, 0, i);
                System.arraycopy(members, i + 1, shrunk, i, members.length - i - 1);
                if (shrunk.length == 0) {
                    remove(gid);
                } else {
                    groups.put(gid, shrunk);
                }
                total--;
                return 0;
            }
        }
        return Errno.EINVAL;
    }

    /** Removes the group {@code gid}, left without members, and leaves it on the link; under this monitor. */
    private void remove(Gid gid) {
        groups.remove(gid);
        if (link != null) {
            link.leaveGroup(gid);
        }
    }

    /**
     * The members of the group {@code gid} now, possibly none, each to be dereferenced (null once collected); the
     * caller must not change the array.
     */
    WeakReference<EmulatedQueuePair>[] members(Gid gid) {
        WeakReference<EmulatedQueuePair>[] members = groups.get(gid);
        return members == null ? NONE : members;
    }
}
