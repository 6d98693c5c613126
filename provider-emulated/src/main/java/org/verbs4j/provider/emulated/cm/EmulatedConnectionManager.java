package org.verbs4j.provider.emulated.cm;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.verbs4j.CmEventChannel;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionManager;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.verbs.EmulatedContext;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.spi.support.CmArguments;

/**
 * The emulated connection manager: rdma_cm within one JVM. Its state is shared by the whole JVM, as the
 * emulated devices are, so ids made through different provider instances reach each other, as two processes
 * on one host do.
 *
 * <p>Addresses: the loopback addresses, every address of a local network interface and the wildcard map to
 * {@code emu0}; {@code 10.255.0.N}, the address in the IPv4-mapped GID of {@code emu(N-1)}, maps to that
 * device; a wire device's address, or one in its subnet, maps to that wire device, whose {@link CmAgent} speaks
 * the IB CM to the peer. Any other address is unreachable: its resolution ends with {@code ADDR_ERROR} and
 * {@code -ETIMEDOUT} when the timeout expires, as an ARP request nobody answers does. Ports are shared by
 * every device (one host), from 1 to 65535; port 0 picks a free one from 49152 up.
 *
 * <p>One lock guards every id, channel and queue: connection management is rare beside the data path, and a
 * single lock makes each connect, accept, reject and disconnect one atomic step with its events in order.
 */
public final class EmulatedConnectionManager implements ConnectionManager {
    public static final EmulatedConnectionManager INSTANCE = new EmulatedConnectionManager();

    /** Guards every id, channel, event queue and the port table. */
    final ReentrantLock lock = new ReentrantLock();
    /** Bound ports, by port space and port ({@link #key}), to the ids that hold each, as the kernel's bind lists. */
    private final Map<Integer, List<EmulatedCmId>> ports = new HashMap<>();
    /** The context each device's ids share, opened on first use. */
    private final Map<EmulatedDevice, EmulatedContext> contexts = new HashMap<>();
    private ScheduledExecutorService timer;
    private int nextEphemeral = 49152;

    private EmulatedConnectionManager() {}

    @Override
    public CmEventChannel createEventChannel() {
        return new EmulatedCmEventChannel(this);
    }

    @Override
    public CmId createId(CmEventChannel channel, CmPortSpace portSpace) {
        Objects.requireNonNull(channel, "channel");
        EmulatedCmEventChannel ch = channel(channel);
        CmArguments.portSpace(portSpace);
        lock.lock();
        try {
            ch.checkOpen();
            return new EmulatedCmId(this, ch, portSpace);
        } finally {
            lock.unlock();
        }
    }

    /** The emulated channel behind {@code channel}; refuses another provider's. */
    EmulatedCmEventChannel channel(CmEventChannel channel) {
        if (!(channel instanceof EmulatedCmEventChannel ch) || ch.cm != this) {
            throw new IllegalArgumentException("channel: " + channel + " is not an emulated connection manager's");
        }
        return ch;
    }

    /**
     * The device an address belongs to or is reached through, or null if none. The wildcard gives emu0; a wire
     * device's address, or an address in its subnet, gives that wire device ({@link WireRoutes}).
     */
    static EmulatedDevice deviceOf(InetAddress address) {
        if (address instanceof Inet4Address && address.getAddress()[0] == 10 && address.getAddress()[1] == (byte) 255) {
            EmulatedDevice d = EmulatedDevice.byGid(Gid.ofIpv4(address.getAddress()));
            if (d != null) {
                return d;
            }
        }
        EmulatedDevice wire = WireRoutes.deviceFor(address);
        if (wire != null) {
            return wire;
        }
        if (address.isAnyLocalAddress() || address.isLoopbackAddress() || isLocalInterface(address)) {
            List<Device> all = EmulatedDevices.all();
            return (EmulatedDevice) all.getFirst();
        }
        return null;
    }

    private static boolean isLocalInterface(InetAddress address) {
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The context the ids of a device share. Holds {@link #lock}. */
    EmulatedContext context(EmulatedDevice device) {
        return contexts.computeIfAbsent(device, d -> new EmulatedContext(d, true));
    }

    /** The key of a port in a port space: TCP and UDP ids have ports of their own, as in the kernel. */
    private static int key(EmulatedCmId id, int port) {
        return id.portSpace().value() << 16 | port;
    }

    /**
     * Binds an id's address and port; port 0 picks one no id of its port space holds. Holds {@link #lock}.
     *
     * @return the port bound
     * @throws VerbsException {@code EADDRINUSE} or {@code EADDRNOTAVAIL} as {@link #checkPort} finds
     */
    int bindPort(EmulatedCmId id, InetSocketAddress address) {
        int port = address.getPort();
        if (port == 0) {
            for (int i = 0; i < 16384; i++) {
                int p = nextEphemeral;
                nextEphemeral = p == 65535 ? 49152 : p + 1;
                if (!ports.containsKey(key(id, p))) {
                    ports.computeIfAbsent(key(id, p), k -> new ArrayList<>()).add(id);
                    return p;
                }
            }
            throw new VerbsException("rdma_bind_addr", Errno.EADDRINUSE, "every port from 49152 to 65535 is bound");
        }
        checkPort(id, address, id.reuseAddr, "rdma_bind_addr");
        ports.computeIfAbsent(key(id, port), k -> new ArrayList<>()).add(id);
        return port;
    }

    /**
     * Whether an id may hold an address and port beside the ids that hold the port, by the kernel's
     * {@code cma_check_port}: two ids that both reuse the port share it; ids of different families that are both
     * AF-only share it; else a wildcard on either side is {@code EADDRNOTAVAIL}, the same address
     * {@code EADDRINUSE}, and different addresses share the port. Holds {@link #lock}.
     *
     * @param reuse whether the id reuses the port now ({@code false} for a listen)
     * @param verb the librdmacm call, for the exception
     */
    void checkPort(EmulatedCmId id, InetSocketAddress address, boolean reuse, String verb) {
        List<EmulatedCmId> owners = ports.get(key(id, address.getPort()));
        if (owners == null) {
            return;
        }
        InetAddress ip = address.getAddress();
        for (EmulatedCmId other : owners) {
            if (other == id || reuse && other.reuseAddr) {
                continue;
            }
            InetAddress otherIp = other.local.getAddress();
            if (id.afOnly && other.afOnly && ip.getClass() != otherIp.getClass()) {
                continue;
            }
            if (ip.isAnyLocalAddress() || otherIp.isAnyLocalAddress()) {
                throw new VerbsException(verb, Errno.EADDRNOTAVAIL, "port " + address.getPort()
                        + " is bound by another id, one of the two on the wildcard address");
            }
            if (ip.equals(otherIp)) {
                throw new VerbsException(verb, Errno.EADDRINUSE, address + " is bound by another id");
            }
        }
    }

    /** Frees a port an id held. Holds {@link #lock}. */
    void releasePort(EmulatedCmId id, int port) {
        List<EmulatedCmId> owners = ports.get(key(id, port));
        if (owners != null && owners.remove(id) && owners.isEmpty()) {
            ports.remove(key(id, port));
        }
    }

    /** The id listening on a port for a device, or null. Holds {@link #lock}. */
    EmulatedCmId listener(InetSocketAddress dst, EmulatedDevice device) {
        List<EmulatedCmId> owners = ports.get(CmPortSpace.TCP.value() << 16 | dst.getPort());
        if (owners != null) {
            for (EmulatedCmId id : owners) {
                if (id.isListeningFor(device)) {
                    return id;
                }
            }
        }
        return null;
    }

    /** Runs a task after a delay on the connection manager's timer thread, which takes {@link #lock} itself. */
    void schedule(Runnable task, long delayMs) {
        ScheduledExecutorService t;
        synchronized (this) {
            if (timer == null) {
                ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread th = new Thread(r, "verbs4j-emulated-cm-timer");
                    th.setDaemon(true);
                    return th;
                });
                e.setRemoveOnCancelPolicy(true);
                timer = e;
            }
            t = timer;
        }
        t.schedule(() -> {
            lock.lock();
            try {
                task.run();
            } finally {
                lock.unlock();
            }
        }, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString() {
        return "EmulatedConnectionManager";
    }
}
