package org.verbs4j.provider.emulated.verbs;

import org.verbs4j.Gid;
import org.verbs4j.provider.emulated.engine.Transport;

/**
 * A wire device's way onto the network, as the verbs objects see it: whether its port is up, its address, and a
 * transport for each new QP. The wire package's {@code RoceEndpoint} (rxe's {@code rxe_net.c}) implements it, so
 * the verbs objects never depend on the wire transport; an in-JVM device has none.
 */
public interface NetworkLink {
    /** Whether the link's socket is bound: the device's port is ACTIVE, else DOWN. */
    boolean isBound();

    /** The link's IPv4 address, 4 bytes in network order, from which the device's GUID and GIDs derive. */
    byte[] address();

    /** A new transport for {@code qp}: its requests leave as RoCE v2 packets over this link. */
    Transport transport(EmulatedQueuePair qp);

    /**
     * Starts receiving the datagrams sent to the multicast group {@code gid}, on the device's first attach to it
     * ({@code ibv_attach_mcast(3)}); the link then hands them to the QPs the device has attached to the group.
     * Called under the device's {@link MulticastGroups} monitor, once per group until {@link #leaveGroup}.
     *
     * @param gid a multicast GID
     * @return 0, or the errno of the attach: {@code ENOMEM} if the link cannot take the group now
     */
    int joinGroup(Gid gid);

    /**
     * Stops receiving the group's datagrams, after the device's last detach from it; a group never joined is
     * ignored. Called under the device's {@link MulticastGroups} monitor.
     *
     * @param gid a multicast GID given to {@link #joinGroup} before
     */
    void leaveGroup(Gid gid);
}
