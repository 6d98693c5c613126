package org.verbs4j.spi.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.QpType;
import org.verbs4j.VerbsException;

/**
 * The multicast groups one QP is attached to, and the rules of {@code ibv_attach_mcast(3)} and
 * {@code ibv_detach_mcast(3)} that hold before the device is asked, as the kernel's uverbs layer and
 * {@code ib_attach_mcast} apply them: a UD QP only, a multicast GID only, attaching again to a (GID, LID) already
 * attached succeeds without asking the device, and detaching a (GID, LID) never attached is {@code EINVAL}. The
 * device's own limits ({@code max_mcast_grp}, {@code max_mcast_qp_attach}, {@code max_total_mcast_qp_attach}) are
 * the device's. The list also lets {@code close()} detach a QP from every group before destroying it, which the
 * kernel requires ({@code ibv_destroy_qp} is {@code EBUSY} while attached).
 *
 * <p>A provider calls {@link #attach} or {@link #detach} with the device call as the action, under this object's
 * monitor, so the list and the device agree.
 */
public final class MulticastAttachments {
    /** The LID of a multicast group, 16 bits. */
    private static final int MAX_LID = 0xffff;

    /**
     * One attachment: a group's GID and the LID given with it.
     *
     * @param gid the group's multicast GID
     * @param lid the LID, 16 bits
     */
    public record Group(Gid gid, int lid) {}

    /** The device call behind an attach or a detach: 0, or an errno. */
    @FunctionalInterface
    public interface DeviceCall {
        /**
         * Asks the device.
         *
         * @param gid the group's GID
         * @param lid the LID
         * @return 0, or the errno the device answered
         */
        int call(Gid gid, int lid);
    }

    private final QpType type;
    private final List<Group> groups = new ArrayList<>();
    /** Set by {@link #close}: the QP is being destroyed, and an attach racing its close must not land. */
    private boolean closed;

    /**
     * The attachments of a QP of this type, none yet.
     *
     * @param type the QP's type
     */
    public MulticastAttachments(QpType type) {
        this.type = type;
    }

    /**
     * Whether a GID is a multicast GID, as the kernel's {@code rdma_is_multicast_addr} tells: its first byte is
     * {@code 0xff} (IPv6 and IB multicast), or it is the IPv4-mapped form of an IPv4 multicast address
     * ({@code ::ffff:224.0.0.0/4}).
     *
     * @param gid the GID
     * @return whether it names a multicast group
     */
    public static boolean isMulticast(Gid gid) {
        if ((gid.subnetPrefix() >>> 56) == 0xff) {
            return true;
        }
        long lo = gid.interfaceId();
        return gid.subnetPrefix() == 0 && (lo >>> 32) == 0xffff && ((lo >>> 28) & 0xf) == 0xe;
    }

    /**
     * Checks the arguments of an attach or a detach as the Java API does, before any errno rule.
     *
     * @param gid the GID
     * @param lid the LID
     * @throws NullPointerException if {@code gid} is null
     * @throws IllegalArgumentException if {@code lid} is outside {@code 0..0xFFFF}
     */
    public static void checkArguments(Gid gid, int lid) {
        Objects.requireNonNull(gid, "gid");
        if (lid < 0 || lid > MAX_LID) {
            throw new IllegalArgumentException("lid: a multicast LID is 16 bits, 0..0xFFFF, not " + lid);
        }
    }

    /**
     * Attaches: answers at once for a (GID, LID) already attached, refuses a non-UD QP or a GID that is not
     * multicast with {@code EINVAL}, and otherwise asks the device and records the attachment if it agreed.
     *
     * @param gid the group's GID, checked by {@link #checkArguments}
     * @param lid the LID, checked
     * @param device the device's attach
     * @throws IllegalStateException if {@link #close} ran: the QP is closed
     * @throws VerbsException {@code ibv_attach_mcast} with {@code EINVAL} for a non-UD QP or a GID that is not
     *     multicast, or with the device's errno
     */
    public synchronized void attach(Gid gid, int lid, DeviceCall device) {
        checkNotClosed();
        Group g = new Group(gid, lid);
        if (groups.contains(g)) {
            return;
        }
        if (type != QpType.UD) {
            throw new VerbsException("ibv_attach_mcast", Errno.EINVAL, "only UD QPs join multicast groups, not "
                    + type);
        }
        if (!isMulticast(gid)) {
            throw new VerbsException("ibv_attach_mcast", Errno.EINVAL, gid
                    + " is not a multicast GID (first byte 0xff, or ::ffff:224.0.0.0/4)");
        }
        int errno = device.call(gid, lid);
        if (errno != 0) {
            throw new VerbsException("ibv_attach_mcast", errno, "group " + gid);
        }
        groups.add(g);
    }

    /**
     * Detaches: refuses a (GID, LID) not attached with {@code EINVAL}, and otherwise forgets it and asks the
     * device.
     *
     * @param gid the group's GID, checked by {@link #checkArguments}
     * @param lid the LID, checked
     * @param device the device's detach
     * @throws IllegalStateException if {@link #close} ran: the QP is closed
     * @throws VerbsException {@code ibv_detach_mcast} with {@code EINVAL} if this QP is not attached to the
     *     group with that LID, or with the device's errno
     */
    public synchronized void detach(Gid gid, int lid, DeviceCall device) {
        checkNotClosed();
        if (!groups.remove(new Group(gid, lid))) {
            throw new VerbsException("ibv_detach_mcast", Errno.EINVAL, "the QP is not attached to " + gid
                    + " with LID " + lid);
        }
        int errno = device.call(gid, lid);
        if (errno != 0) {
            throw new VerbsException("ibv_detach_mcast", errno, "group " + gid);
        }
    }

    /**
     * Detaches from every group, as a QP's destroy does before the destroy verb; the device's answers are not
     * errors then (a group the device already dropped is detached as far as the QP is concerned). For a provider
     * whose attach and destroy exclude each other (one monitor); otherwise {@link #close}.
     *
     * @param device the device's detach
     */
    public synchronized void detachAll(DeviceCall device) {
        for (Group g : groups) {
            device.call(g.gid(), g.lid());
        }
        groups.clear();
    }

    /**
     * Detaches from every group as {@link #detachAll} does, and refuses every attach and detach from then on with
     * {@link IllegalStateException}: for a provider whose destroy marks the QP closed before it, so that an attach
     * that passed its open check just before cannot land after the detaching.
     *
     * @param device the device's detach
     */
    public synchronized void close(DeviceCall device) {
        detachAll(device);
        closed = true;
    }

    private void checkNotClosed() {
        if (closed) {
            throw new IllegalStateException("the QP is closed");
        }
    }
}
