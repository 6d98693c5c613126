package org.verbs4j.provider.nativecommon.internal;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.verbs4j.AhAttributes;
import org.verbs4j.CmUdParameters;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.provider.nativecommon.internal.PosixStructs.sockaddr_in;
import org.verbs4j.provider.nativecommon.internal.PosixStructs.sockaddr_in6;
import org.verbs4j.provider.nativecommon.internal.PosixStructs.sockaddr_storage;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_cm_event;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_cm_id;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_cm_join_mc_attr_ex;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_conn_param;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_event_channel;
import org.verbs4j.spi.support.internal.CmBinding;

/**
 * librdmacm ({@code librdmacm.so.1}) as a {@link CmBinding}, for both native providers: it builds and reads the
 * structs of {@link RdmaCmStructs} in Java and leaves a provider only the raw calls, on addresses, and four
 * memory primitives. Native memory is allocated per call: these are control-path verbs.
 */
public abstract class LibRdmaCm implements CmBinding {
    /** The library's soname. */
    public static final String SONAME = "librdmacm.so.1";
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN} and {@code RDMA_CM_EVENT_MULTICAST_ERROR}. */
    private static final int MULTICAST_JOIN = 12;
    private static final int MULTICAST_ERROR = 13;
    /** {@code RDMA_CM_JOIN_MC_ATTR_ADDRESS} and {@code _JOIN_FLAGS}: the fields of a join attribute set. */
    private static final int JOIN_MC_ATTR_ADDRESS = 1;
    private static final int JOIN_MC_ATTR_JOIN_FLAGS = 2;
    /** {@code RDMA_OPTION_ID}, the level of the id's options. */
    private static final int RDMA_OPTION_ID = 0;
    /** {@code sizeof(struct sockaddr_storage)}: what a sockaddr buffer of ours holds. */
    private static final int SOCKADDR_STORAGE = (int) sockaddr_storage.SIZEOF;

    /** librdmacm's functions, bound from their declarations by the provider. */
    private final LibRdmaCmFunctions fn;

    /**
     * For a subclass.
     *
     * @param functions librdmacm's functions, bound by the provider ({@link LibRdmaCmFunctions})
     */
    protected LibRdmaCm(LibRdmaCmFunctions functions) {
        this.fn = functions;
    }

    // ---------------------------------------------------------------- what a provider binds

    /** {@return native memory of this size, not initialised; never 0} */
    protected abstract long allocate(long bytes);

    /** Frees what {@link #allocate} returned. */
    protected abstract void free(long address);

    /** Copies bytes to native memory. */
    protected abstract void put(long address, byte[] bytes);

    /** {@return a copy of native memory} */
    protected abstract byte[] get(long address, int length);

    /** {@return {@code ibv_get_device_name} of a {@code struct ibv_device *}} */
    protected abstract String ibv_get_device_name(long device);

    /** {@return {@code sizeof(struct ibv_qp_attr)}} */
    protected abstract long qpAttrSize();

    /** {@return the attributes of a {@code struct ibv_qp_attr} with this mask} */
    protected abstract QpAttributes readQpAttr(long qpAttr, int mask);

    // ---------------------------------------------------------------- helpers

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Throws the verb's errno for a result of {@link LibRdmaCmFunctions}' contract: 0, or −errno. */
    private static void check(String verb, int rc) {
        if (rc != 0) {
            throw NativeErrors.exception(rc, verb, null);
        }
    }

    private long pointer(long address) {
        return le(get(address, 8)).getLong(0);
    }

    /** {@code struct sockaddr_in} or {@code sockaddr_in6} bytes of an address, in a sockaddr_storage. */
    static byte[] sockaddr(InetSocketAddress a) {
        byte[] b = new byte[SOCKADDR_STORAGE];
        ByteBuffer bb = le(b);
        InetAddress ip = a.getAddress();
        short port = Short.reverseBytes((short) a.getPort());
        if (ip instanceof Inet4Address) {
            bb.putShort((int) sockaddr_in.sin_family$off, (short) AF_INET);
            bb.putShort((int) sockaddr_in.sin_port$off, port);
            bb.put((int) sockaddr_in.sin_addr$off, ip.getAddress());
        } else {
            bb.putShort((int) sockaddr_in6.sin6_family$off, (short) AF_INET6);
            bb.putShort((int) sockaddr_in6.sin6_port$off, port);
            bb.put((int) sockaddr_in6.sin6_addr$off, ip.getAddress());
            bb.putInt((int) sockaddr_in6.sin6_scope_id$off, ((Inet6Address) ip).getScopeId());
        }
        return b;
    }

    /**
     * The address in sockaddr bytes, or null for none: {@code AF_UNSPEC}, or the wildcard with port 0 (the kernel
     * gives an id bound with no destination a destination of its family, all zeros).
     */
    static InetSocketAddress address(byte[] b, int at) {
        InetSocketAddress a = sockaddrAt(b, at);
        return a == null || a.getPort() == 0 && a.getAddress().isAnyLocalAddress() ? null : a;
    }

    /** The address in sockaddr bytes, or null for {@code AF_UNSPEC}. */
    private static InetSocketAddress sockaddrAt(byte[] b, int at) {
        ByteBuffer bb = le(b);
        int family = bb.getShort(at) & 0xffff;
        try {
            if (family == AF_INET) {
                byte[] ip = new byte[4];
                bb.get(at + (int) sockaddr_in.sin_addr$off, ip);
                int port = Short.reverseBytes(bb.getShort(at + (int) sockaddr_in.sin_port$off)) & 0xffff;
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == AF_INET6) {
                byte[] ip = new byte[16];
                bb.get(at + (int) sockaddr_in6.sin6_addr$off, ip);
                int port = Short.reverseBytes(bb.getShort(at + (int) sockaddr_in6.sin6_port$off)) & 0xffff;
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            return null;
        } catch (UnknownHostException e) {
            throw new AssertionError("a 4- or 16-byte address is always valid", e);
        }
    }

    /** Runs a call with native copies of byte arrays; frees them after. */
    private int withMemory(NativeCall call, byte[]... blocks) {
        long[] at = new long[blocks.length];
        try {
            for (int i = 0; i < blocks.length; i++) {
                if (blocks[i] != null) {
                    at[i] = allocate(Math.max(1, blocks[i].length));
                    put(at[i], blocks[i]);
                }
            }
            return call.run(at);
        } finally {
            for (long a : at) {
                if (a != 0) {
                    free(a);
                }
            }
        }
    }

    @FunctionalInterface
    private interface NativeCall {
        int run(long[] addresses);
    }

    // ---------------------------------------------------------------- CmBinding

    @Override
    public long createEventChannel() {
        long ch = fn.rdma_create_event_channel();
        if (ch < 0) { // NULL_SETS: the channel, or −errno
            throw NativeErrors.exception(ch, "rdma_create_event_channel", null);
        }
        return ch;
    }

    @Override
    public int fd(long channel) {
        return le(get(channel + rdma_event_channel.fd$off, 4)).getInt(0);
    }

    @Override
    public void destroyEventChannel(long channel) {
        fn.rdma_destroy_event_channel(channel);
    }

    @Override
    public long createId(long channel, int portSpace) {
        long[] id = new long[1];
        check("rdma_create_id", withMemory(a -> {
            int rc = fn.rdma_create_id(channel, a[0], 0, portSpace);
            id[0] = rc == 0 ? pointer(a[0]) : 0;
            return rc;
        }, new byte[8]));
        return id[0];
    }

    @Override
    public void destroyId(long id) {
        check("rdma_destroy_id", fn.rdma_destroy_id(id));
    }

    @Override
    public void bindAddr(long id, InetSocketAddress address) {
        check("rdma_bind_addr", withMemory(a -> fn.rdma_bind_addr(id, a[0]), sockaddr(address)));
    }

    @Override
    public void resolveAddr(long id, InetSocketAddress src, InetSocketAddress dst, int timeoutMs) {
        check("rdma_resolve_addr", withMemory(a -> fn.rdma_resolve_addr(id, a[0], a[1], timeoutMs),
                src == null ? null : sockaddr(src), sockaddr(dst)));
    }

    @Override
    public void resolveRoute(long id, int timeoutMs) {
        check("rdma_resolve_route", fn.rdma_resolve_route(id, timeoutMs));
    }

    @Override
    public void listen(long id, int backlog) {
        check("rdma_listen", fn.rdma_listen(id, backlog));
    }

    /** {@code struct rdma_conn_param} followed by the private data it points to, placed at {@code at}. */
    static byte[] connParam(ConnectionParameters p, int qpNum, boolean srq, long at) {
        int size = (int) rdma_conn_param.SIZEOF;
        byte[] data = p.privateData();
        byte[] b = new byte[size + data.length];
        ByteBuffer bb = le(b);
        bb.putLong((int) rdma_conn_param.private_data$off, data.length == 0 ? 0 : at + size);
        bb.put((int) rdma_conn_param.private_data_len$off, (byte) data.length);
        bb.put((int) rdma_conn_param.responder_resources$off, (byte) p.responderResources());
        bb.put((int) rdma_conn_param.initiator_depth$off, (byte) p.initiatorDepth());
        bb.put((int) rdma_conn_param.retry_count$off, (byte) p.retryCount());
        bb.put((int) rdma_conn_param.rnr_retry_count$off, (byte) p.rnrRetryCount());
        bb.put((int) rdma_conn_param.srq$off, (byte) (srq ? 1 : 0));
        bb.putInt((int) rdma_conn_param.qp_num$off, qpNum);
        System.arraycopy(data, 0, b, size, data.length);
        return b;
    }

    private int withConnParam(ConnectionParameters p, int qpNum, boolean srq, java.util.function.LongToIntFunction call) {
        long at = allocate(rdma_conn_param.SIZEOF + p.privateDataLength());
        try {
            put(at, connParam(p, qpNum, srq, at));
            return call.applyAsInt(at);
        } finally {
            free(at);
        }
    }

    @Override
    public void connect(long id, ConnectionParameters parameters, int qpNum, boolean srq) {
        check("rdma_connect", withConnParam(parameters, qpNum, srq, at -> fn.rdma_connect(id, at)));
    }

    @Override
    public void accept(long id, ConnectionParameters parameters, int qpNum, boolean srq) {
        check("rdma_accept", withConnParam(parameters, qpNum, srq, at -> fn.rdma_accept(id, at)));
    }

    @Override
    public void reject(long id, byte[] privateData) {
        check("rdma_reject", withMemory(a -> fn.rdma_reject(id, privateData.length == 0 ? 0 : a[0],
                privateData.length), privateData));
    }

    @Override
    public void establish(long id) {
        check("rdma_establish", fn.rdma_establish(id));
    }

    @Override
    public void disconnect(long id) {
        check("rdma_disconnect", fn.rdma_disconnect(id));
    }

    @Override
    public void migrate(long id, long channel) {
        check("rdma_migrate_id", fn.rdma_migrate_id(id, channel));
    }

    @Override
    public void setOption(long id, int optname, int value) {
        // TOS (0) and ACK_TIMEOUT (3) are a uint8_t, REUSEADDR (1) and AFONLY (2) an int: the kernel checks optlen.
        boolean oneByte = optname == 0 || optname == 3;
        byte[] optval = oneByte ? new byte[] {(byte) value} : le(new byte[4]).putInt(0, value).array();
        check("rdma_set_option", withMemory(a -> fn.rdma_set_option(id, RDMA_OPTION_ID, optname, a[0], optval.length),
                optval));
    }

    @Override
    public void joinMulticast(long id, InetAddress group, long context, int joinFlags) {
        byte[] addr = sockaddr(new InetSocketAddress(group, 0));
        if (joinFlags == 0) { // RDMA_MC_JOIN_FLAG_FULLMEMBER: the plain call
            check("rdma_join_multicast", withMemory(a -> fn.rdma_join_multicast(id, a[0], context), addr));
            return;
        }
        byte[] attr = new byte[(int) rdma_cm_join_mc_attr_ex.SIZEOF];
        check("rdma_join_multicast_ex", withMemory(a -> {
            ByteBuffer b = le(attr);
            b.putInt((int) rdma_cm_join_mc_attr_ex.comp_mask$off, JOIN_MC_ATTR_ADDRESS | JOIN_MC_ATTR_JOIN_FLAGS);
            b.putInt((int) rdma_cm_join_mc_attr_ex.join_flags$off, joinFlags);
            b.putLong((int) rdma_cm_join_mc_attr_ex.addr$off, a[1]);
            put(a[0], attr);
            return fn.rdma_join_multicast_ex(id, a[0], context);
        }, attr, addr));
    }

    @Override
    public void leaveMulticast(long id, InetAddress group) {
        check("rdma_leave_multicast", withMemory(a -> fn.rdma_leave_multicast(id, a[0]),
                sockaddr(new InetSocketAddress(group, 0))));
    }

    @Override
    public QpAttributes initQpAttr(long id, QpState state) {
        long attr = allocate(qpAttrSize());
        long mask = allocate(4);
        try {
            put(attr, new byte[(int) qpAttrSize()]);
            byte[] first = new byte[4];
            le(first).putInt(0, state.value());
            put(attr, first); // qp_state is ibv_qp_attr's first member
            put(mask, new byte[4]);
            check("rdma_init_qp_attr", fn.rdma_init_qp_attr(id, attr, mask));
            return readQpAttr(attr, le(get(mask, 4)).getInt(0));
        } finally {
            free(attr);
            free(mask);
        }
    }

    private byte[] id(long id) {
        return get(id, (int) rdma_cm_id.SIZEOF);
    }

    @Override
    public String deviceName(long id) {
        long verbs = le(id(id)).getLong((int) rdma_cm_id.verbs$off);
        // struct ibv_context's first member is its struct ibv_device *.
        return verbs == 0 ? null : ibv_get_device_name(pointer(verbs));
    }

    @Override
    public int portNum(long id) {
        return id(id)[(int) rdma_cm_id.port_num$off] & 0xff;
    }

    @Override
    public InetSocketAddress localAddress(long id) {
        return address(id(id), (int) rdma_cm_id.route$addr$src_addr$off);
    }

    @Override
    public InetSocketAddress remoteAddress(long id) {
        return address(id(id), (int) rdma_cm_id.route$addr$dst_addr$off);
    }

    @Override
    public RawEvent getEvent(long channel) {
        long[] event = new long[1];
        check("rdma_get_cm_event", withMemory(a -> {
            int rc = fn.rdma_get_cm_event(channel, a[0]);
            event[0] = rc == 0 ? pointer(a[0]) : 0;
            return rc;
        }, new byte[8]));
        ByteBuffer e = le(get(event[0], (int) rdma_cm_event.SIZEOF));
        int type = e.getInt((int) rdma_cm_event.event$off);
        long data = carriesConnParam(type) ? e.getLong((int) rdma_cm_event.param$conn$private_data$off) : 0;
        int length = e.get((int) rdma_cm_event.param$conn$private_data_len$off) & 0xff;
        boolean multicast = type == MULTICAST_JOIN || type == MULTICAST_ERROR;
        // librdmacm puts a join's context in param.ud.private_data (ucma_process_join).
        long udContext = multicast ? e.getLong((int) rdma_cm_event.param$ud$private_data$off) : 0;
        CmUdParameters ud = type == MULTICAST_JOIN && e.getInt((int) rdma_cm_event.status$off) == 0
                ? new CmUdParameters(ahAttr(e, (int) rdma_cm_event.param$ud$ah_attr$off),
                        e.getInt((int) rdma_cm_event.param$ud$qp_num$off) & 0xffffff,
                        e.getInt((int) rdma_cm_event.param$ud$qkey$off))
                : null;
        return new RawEvent(event[0], e.getLong((int) rdma_cm_event.id$off),
                e.getLong((int) rdma_cm_event.listen_id$off), type,
                e.getInt((int) rdma_cm_event.status$off), data == 0 ? new byte[0] : get(data, length),
                e.get((int) rdma_cm_event.param$conn$responder_resources$off) & 0xff,
                e.get((int) rdma_cm_event.param$conn$initiator_depth$off) & 0xff, udContext, ud);
    }

    /** The {@code struct ibv_ah_attr} at byte {@code at} of a copied struct. */
    static AhAttributes ahAttr(ByteBuffer b, int at) {
        GlobalRoute grh = null;
        if (b.get(at + (int) ibv_ah_attr.is_global$off) != 0) {
            byte[] dgid = new byte[16];
            b.get(at + (int) ibv_ah_attr.grh$dgid$off, dgid);
            grh = new GlobalRoute(Gid.of(dgid), b.getInt(at + (int) ibv_ah_attr.grh$flow_label$off) & 0xfffff,
                    b.get(at + (int) ibv_ah_attr.grh$sgid_index$off) & 0xff,
                    b.get(at + (int) ibv_ah_attr.grh$hop_limit$off) & 0xff,
                    b.get(at + (int) ibv_ah_attr.grh$traffic_class$off) & 0xff);
        }
        return new AhAttributes(grh, b.getShort(at + (int) ibv_ah_attr.dlid$off) & 0xffff,
                b.get(at + (int) ibv_ah_attr.sl$off) & 0xf, b.get(at + (int) ibv_ah_attr.src_path_bits$off) & 0xff,
                b.get(at + (int) ibv_ah_attr.static_rate$off) & 0xff,
                Math.max(1, b.get(at + (int) ibv_ah_attr.port_num$off) & 0xff));
    }

    /**
     * Whether librdmacm fills {@code param.conn} for this event type: CONNECT_REQUEST (4), CONNECT_RESPONSE (5),
     * REJECTED (8) and ESTABLISHED (9); the private data of no other event is read.
     */
    private static boolean carriesConnParam(int type) {
        return type == 4 || type == 5 || type == 8 || type == 9;
    }

    @Override
    public void ackEvent(long event) {
        check("rdma_ack_cm_event", fn.rdma_ack_cm_event(event));
    }
}
