package org.verbs4j.spi.support.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.verbs4j.CmEventChannel;
import org.verbs4j.CmId;
import org.verbs4j.CmPortSpace;
import org.verbs4j.ConnectionManager;
import org.verbs4j.Context;
import org.verbs4j.spi.VerbsProvider;
import org.verbs4j.spi.support.CmArguments;

/**
 * A {@link ConnectionManager} over a native one ({@link CmBinding}, librdmacm): the one object model of the
 * ffm and jnr providers' connection managers, and of any vendor's over librdmacm.
 *
 * <p>What it adds to the native calls, so every provider behaves as {@code rdma_cm(7)} and the TCK say:
 * <ul>
 *   <li>Ids, channels and events are Java objects checked before any native call: use after close is an
 *       {@link IllegalStateException}, and closing an id with a QP or an unacknowledged event, or a channel
 *       with an id, is {@code EBUSY} (librdmacm would block or free memory still in use).</li>
 *   <li>The QP of an id is an ordinary QP of the provider, created with {@code ProtectionDomain.createQp}:
 *       librdmacm's path for a QP the application manages. The object model moves it through INIT, RTR and
 *       RTS with the attributes of {@code rdma_init_qp_attr(3)}, as {@code rdma_accept} and the
 *       connect-response step of {@code rdma_get_cm_event} do for a QP made by {@code rdma_create_qp}, then
 *       calls {@code rdma_establish(3)} on the active side; the application sees {@code ESTABLISHED} as with
 *       {@code rdma_create_qp}. A reject and a local disconnect move it to ERR, as librdmacm does. The
 *       provider's QP object thus always knows its state, and closing it never leaves librdmacm a stale
 *       pointer.</li>
 *   <li>The id's {@link CmId#context()} is a context the connection manager opened on the id's device through
 *       the provider and keeps for the JVM's life; its {@code close()} throws {@link IllegalStateException}.</li>
 * </ul>
 *
 * <p>One lock guards every id, channel and native call but the wait for a channel's descriptor: connection
 * management is rare beside the data path.
 */
public final class BoundConnectionManager implements ConnectionManager {
    final CmBinding binding;
    private final VerbsProvider provider;
    /** Guards every id, channel, event and native call. */
    final ReentrantLock lock = new ReentrantLock();
    /** The open ids, by native handle. Guarded by {@link #lock}. */
    final Map<Long, BoundCmId> ids = new HashMap<>();
    /** The contexts of the devices ids were bound to, by device name. Guarded by {@link #lock}. */
    private final Map<String, Context[]> contexts = new HashMap<>();

    /**
     * A connection manager over a binding.
     *
     * @param binding the native calls
     * @param provider the provider whose devices the ids' contexts are opened on
     */
    public BoundConnectionManager(CmBinding binding, VerbsProvider provider) {
        this.binding = Objects.requireNonNull(binding, "binding");
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    @Override
    public CmEventChannel createEventChannel() {
        lock.lock();
        try {
            return new BoundCmEventChannel(this, binding.createEventChannel());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CmId createId(CmEventChannel channel, CmPortSpace portSpace) {
        Objects.requireNonNull(channel, "channel");
        BoundCmEventChannel ch = channel(channel);
        CmArguments.portSpace(portSpace);
        lock.lock();
        try {
            ch.checkOpen();
            long handle = binding.createId(ch.handle, portSpace.value());
            return register(new BoundCmId(this, ch, portSpace, handle, false));
        } finally {
            lock.unlock();
        }
    }

    /** Records a new id. Holds {@link #lock}. */
    BoundCmId register(BoundCmId id) {
        ids.put(id.handle, id);
        return id;
    }

    /** The channel behind {@code channel}; refuses another connection manager's. */
    BoundCmEventChannel channel(CmEventChannel channel) {
        if (!(channel instanceof BoundCmEventChannel ch) || ch.cm != this) {
            throw new IllegalArgumentException("channel: " + channel + " is not this connection manager's");
        }
        return ch;
    }

    /**
     * The context of a device for its ids, opened on first use. Holds {@link #lock}.
     *
     * @return {the real context, the one handed out}
     */
    Context[] context(String deviceName) {
        return contexts.computeIfAbsent(deviceName, name -> {
            Context real = provider.device(name).open();
            return new Context[] {real, borrowed(real)};
        });
    }

    /** A view of a context whose {@code close()} is refused: the connection manager owns it. */
    private static Context borrowed(Context real) {
        return (Context) Proxy.newProxyInstance(Context.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close" -> throw new IllegalStateException("this context belongs to the connection"
                                + " manager, shared by every id on " + real + ": close the PDs and CQs made on it,"
                                + " never the context");
                        case "equals" -> {
                            return proxy == args[0];
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(proxy);
                        }
                        case "toString" -> {
                            return "connection manager's " + real;
                        }
                        default -> {
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                    }
                });
    }

    @Override
    public String toString() {
        return "BoundConnectionManager[" + binding + "]";
    }
}
