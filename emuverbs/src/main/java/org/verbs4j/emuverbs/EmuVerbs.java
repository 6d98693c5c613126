package org.verbs4j.emuverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.verbs4j.AddressHandle;
import org.verbs4j.AsyncEvent;
import org.verbs4j.CompletionChannel;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.Ece;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.DeviceAttributesEx;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.GidEntry;
import org.verbs4j.GidType;
import org.verbs4j.GlobalRoute;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MrAdvice;
import org.verbs4j.Mtu;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.PathMigState;
import org.verbs4j.PortAttributes;
import org.verbs4j.PostRecvException;
import org.verbs4j.PostSendException;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpCapabilities;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpRateLimit;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.RecvWr;
import org.verbs4j.ReregFlags;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.ThreadDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.WcOpcode;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletion;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.XrcDomain;
import org.verbs4j.provider.emulated.EmulatedProvider;

/**
 * The Java half of the forwarding libibverbs (issue 26, {@code emuverbs/src/main/c/emu_ibverbs.c}): the one upcall every verb
 * of that library calls, which maps its handles to the emulated provider's objects and runs the verb there. It only
 * translates (handles to objects, flat slots to the API's values and back, exceptions to errno); every rule is the
 * emulated engine's, so the ffm and jnr providers loaded over the library run their shared native layer against the
 * same engine the emulated provider's own TCK runs.
 */
public final class EmuVerbs {
    // Over 600 lines: the one upcall's dispatch, a case per forwarded verb, numbered as emu_ibverbs.c's ops.
    /** The device of the emulated provider that {@code emuverbs0} forwards to. */
    private static volatile Device device;
    /** The C struct of each CQ, QP and SRQ, which events name. */
    private static final Map<Object, Long> C_STRUCT = new ConcurrentHashMap<>();
    /** The event pumps of contexts (async events) and completion channels, by handle. */
    private static final Map<Long, Pump<?>> PUMPS = new ConcurrentHashMap<>();
    private static final MethodHandle EVENTFD_WRITE = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("eventfd_write").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));

    /** Something that waits up to a timeout in milliseconds for the engine's next event. */
    private interface Source<T> {
        T next(long timeoutMs);
    }

    /**
     * Takes a context's asynchronous events, or a channel's CQ events, from the engine as they come, queues them,
     * and makes the C side's eventfd readable once per event: the native layer waits on that fd with poll(2).
     */
    private static final class Pump<T> {
        final Queue<T> queue = new ConcurrentLinkedQueue<>();
        private final int fd;
        private final Source<T> source;
        private volatile boolean running = true;
        private Thread thread;

        Pump(int fd, Source<T> source) {
            this.fd = fd;
            this.source = source;
        }

        void start(String name) {
            thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        }

        private void run() {
            try {
                while (running) {
                    T ev = source.next(20);
                    if (ev != null) {
                        queue.add(ev);
                        int rc = (int) EVENTFD_WRITE.invokeExact(fd, 1L);
                        if (rc != 0) {
                            return;
                        }
                    }
                }
            } catch (IllegalStateException closed) {
                // the context or channel was closed under the pump: nothing more comes
            } catch (Throwable t) {
                t.printStackTrace();
            }
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }
    }
    private static final Map<Long, Object> OBJECTS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(0x100);
    private static final int SLOTS = 64;
    private static final int WR_SLOTS = 21;
    /**
     * The multicast attachments of each QP, by handle, as the kernel counts them: it refuses to destroy a QP that is
     * still attached ({@code EBUSY}), where the engine's {@code close()} would detach first. An attach of a group
     * already attached counts again here; the native layer never makes one.
     */
    private static final Map<Long, Integer> MCAST = new ConcurrentHashMap<>();
    /**
     * The handles of the regions without host memory: of device memory ({@code ibv_reg_dm_mr}, zero-based) and of
     * dma-bufs ({@code ibv_reg_dmabuf_mr}, from their iova).
     */
    private static final Set<Long> HOSTLESS_REGIONS = ConcurrentHashMap.newKeySet();
    private static final int WC_SLOTS = 15;
    private static volatile String registered;

    private static Device device() {
        Device d = device;
        if (d == null) {
            d = new EmulatedProvider().devices().get(0);
            device = d;
        }
        return d;
    }

    /** {@return whether the forwarding library is loaded and its upcall registered} */
    public static boolean isRegistered() {
        return "".equals(registered);
    }

    private EmuVerbs() {}

    /**
     * Registers the upcall with the {@code libibverbs.so.1} the dynamic linker resolves (the forwarding library when
     * {@code LD_LIBRARY_PATH} names it), before any provider lists devices.
     *
     * @return null once registered, else why not (no such library, or the real libibverbs)
     */
    public static synchronized String register() {
        if (registered != null) {
            return registered.isEmpty() ? null : registered;
        }
        try {
            SymbolLookup lib = SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
            Optional<MemorySegment> reg = lib.find("emuverbs_register");
            if (reg.isEmpty()) {
                registered = "the libibverbs.so.1 on the library path is not the forwarding library (no emuverbs_register;"
                        + " LD_LIBRARY_PATH=" + System.getenv("LD_LIBRARY_PATH") + ")";
                return registered;
            }
            Linker linker = Linker.nativeLinker();
            MethodHandle target = MethodHandles.lookup().findStatic(EmuVerbs.class, "up",
                    MethodType.methodType(int.class, int.class, MemorySegment.class));
            MemorySegment stub = linker.upcallStub(target, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS),
                    Arena.global());
            linker.downcallHandle(reg.get(), FunctionDescriptor.ofVoid(ADDRESS)).invokeExact(stub);
            registered = "";
            return null;
        } catch (Throwable t) {
            registered = "libibverbs.so.1 does not load: " + t;
            return registered;
        }
    }

    /**
     * The emulated object behind a handle of the forwarding library, as its direct verbs
     * ({@code emuverbsdv_query_qp}, {@code emuverbsdv_query_context}) report it: for the tests of the example vendor
     * extension.
     *
     * @param handle the handle
     * @return the object, or null if no live object has it
     */
    public static Object forwardedObject(long handle) {
        return OBJECTS.get(handle);
    }

    private static long put(Object o) {
        long h = NEXT.getAndIncrement();
        OBJECTS.put(h, o);
        return h;
    }

    @SuppressWarnings("unchecked")
    private static <T> T get(long h, Class<T> type) {
        Object o = h == 0 ? null : OBJECTS.get(h);
        if (h != 0 && !type.isInstance(o)) {
            throw new IllegalArgumentException("no " + type.getSimpleName() + " with handle " + h);
        }
        return (T) o;
    }

    /** The upcall: never throws (an exception out of an upcall ends the JVM). */
    static int up(int op, MemorySegment ioAddress) {
        MemorySegment io = ioAddress.reinterpret(SLOTS * 8L);
        try {
            return dispatch(op, io);
        } catch (PostSendException e) {
            io.setAtIndex(JAVA_LONG, 4, e.badWrIndex());
            return e.errno();
        } catch (PostRecvException e) {
            io.setAtIndex(JAVA_LONG, 4, e.badWrIndex());
            return e.errno();
        } catch (VerbsException e) {
            return e.errno() == 0 ? Errno.EINVAL : e.errno();
        } catch (UnsupportedOperationException e) {
            return Errno.EOPNOTSUPP;
        } catch (IllegalArgumentException | IllegalStateException | IndexOutOfBoundsException
                 | NullPointerException e) {
            return Errno.EINVAL;
        } catch (Throwable t) {
            t.printStackTrace();
            return Errno.EIO;
        }
    }

    private static long in(MemorySegment io, int i) {
        return io.getAtIndex(JAVA_LONG, i);
    }

    private static int inInt(MemorySegment io, int i) {
        return (int) io.getAtIndex(JAVA_LONG, i);
    }

    private static void out(MemorySegment io, int i, long v) {
        io.setAtIndex(JAVA_LONG, i, v);
    }

    private static int dispatch(int op, MemorySegment io) throws Exception {
        switch (op) {
            case 1 -> {
                Context ctx = device().open();
                long h = put(ctx);
                out(io, 0, h);
                Pump<AsyncEvent> p = new Pump<>(inInt(io, 1), t -> ctx.pollAsyncEvent(t, TimeUnit.MILLISECONDS));
                PUMPS.put(h, p);
                p.start("emuverbs async events " + h);
            }
            case 2 -> {
                Pump<?> p = PUMPS.remove(in(io, 0));
                if (p != null) {
                    p.stop();
                }
                get(in(io, 0), Context.class).close();
                OBJECTS.remove(in(io, 0));
            }
            case 3 -> queryDevice(io);
            case 4 -> queryPort(io);
            case 5 -> queryGid(io);
            case 6 -> out(io, 1, put(get(in(io, 0), Context.class).allocPd()));
            case 7 -> close(io, ProtectionDomain.class);
            case 8 -> regMr(io);
            case 9 -> close(io, MemoryRegion.class);
            case 10 -> {
                Context ctx = get(in(io, 0), Context.class);
                // slot 7: the wc_flags of ibv_create_cq_ex (the standard ones for ibv_create_cq)
                CompletionQueue cq = ctx.createCq(new CqInitAttributes(inInt(io, 1),
                        get(in(io, 2), CompletionChannel.class), inInt(io, 3), in(io, 7)));
                out(io, 4, put(cq));
                out(io, 5, cq.capacity());
                C_STRUCT.put(cq, in(io, 6));
            }
            case 11 -> {
                Object cq = OBJECTS.get(in(io, 0));
                close(io, CompletionQueue.class);
                C_STRUCT.remove(cq);
            }
            case 12 -> pollCq(io);
            case 13 -> get(in(io, 0), CompletionQueue.class).requestNotify(in(io, 1) != 0);
            case 14 -> createQp(io);
            case 15 -> modifyQp(io);
            case 16 -> queryQp(io);
            case 17 -> {
                // as the kernel answers a destroy of a QP still attached to a multicast group
                Integer groups = MCAST.get(in(io, 0));
                if (groups != null && groups > 0) {
                    return Errno.EBUSY;
                }
                MCAST.remove(in(io, 0));
                Object qp = OBJECTS.get(in(io, 0));
                close(io, QueuePair.class);
                C_STRUCT.remove(qp);
            }
            case 18 -> postSend(io);
            case 19 -> postRecv(io, false);
            case 20 -> out(io, 20, put(get(in(io, 0), ProtectionDomain.class).createAh(ah(io, 1))));
            case 21 -> close(io, AddressHandle.class);
            case 22 -> out(io, 3, get(in(io, 0), QueuePair.class).queryDataInOrder(WrOpcode.of(inInt(io, 1)),
                    inInt(io, 2)));
            case 23 -> {
                SharedReceiveQueue srq = get(in(io, 0), ProtectionDomain.class)
                        .createSrq(new SrqInitAttributes(inInt(io, 1), inInt(io, 2), inInt(io, 3)));
                out(io, 4, put(srq));
                C_STRUCT.put(srq, in(io, 7));
                SrqInitAttributes a = srq.query();
                out(io, 5, a.maxWr());
                out(io, 6, a.maxSge());
            }
            case 24 -> {
                // ibv_modify_srq: IBV_SRQ_MAX_WR (resize) is not supported by the emulated SRQ; IBV_SRQ_LIMIT arms.
                int mask = inInt(io, 1);
                if ((mask & 1) != 0) {
                    return Errno.EINVAL;
                }
                if ((mask & 2) != 0) {
                    get(in(io, 0), SharedReceiveQueue.class).armLimit(inInt(io, 3));
                }
            }
            case 25 -> {
                SrqInitAttributes a = get(in(io, 0), SharedReceiveQueue.class).query();
                out(io, 1, a.maxWr());
                out(io, 2, a.maxSge());
                out(io, 3, a.srqLimit());
            }
            case 26 -> {
                Object srq = OBJECTS.get(in(io, 0));
                close(io, SharedReceiveQueue.class);
                C_STRUCT.remove(srq);
            }
            case 27 -> postRecv(io, true);
            case 28 -> {
                MemoryWindow mw = get(in(io, 0), ProtectionDomain.class)
                        .allocMw(inInt(io, 1) == 1 ? MwType.TYPE_1 : MwType.TYPE_2);
                out(io, 2, put(mw));
                out(io, 3, mw.rkey());
            }
            case 29 -> close(io, MemoryWindow.class);
            case 30 -> out(io, 1, put(get(in(io, 0), Context.class).allocTd()));
            case 31 -> close(io, ThreadDomain.class);
            case 32 -> wrComplete(io);
            case 33 -> {
                InFlightCalls.Call call = InFlightCalls.enter("ibv_bind_mw", new long[] {in(io, 1), in(io, 4)},
                        new long[0], LIVE);
                try {
                    QueuePair qp = get(in(io, 0), QueuePair.class);
                    MemoryRegion mr = get(in(io, 4), MemoryRegion.class);
                    out(io, 8, qp.bindMw(get(in(io, 1), MemoryWindow.class), in(io, 2), inInt(io, 3),
                            mr == null ? null : new MwBindInfo(mr, in(io, 5), in(io, 6), inInt(io, 7))));
                } finally {
                    call.close(); // its EFAULT, if any, replaces what the engine said about the destroyed object
                }
            }
            case 34 -> {
                CompletionChannel ch = get(in(io, 0), Context.class).createCompletionChannel();
                long h = put(ch);
                out(io, 2, h);
                Pump<CompletionQueue> p = new Pump<>(inInt(io, 1), t -> ch.awaitEvent(t, TimeUnit.MILLISECONDS));
                PUMPS.put(h, p);
                p.start("emuverbs CQ events " + h);
            }
            case 35 -> {
                Pump<?> p = PUMPS.remove(in(io, 0));
                if (p != null) {
                    p.stop();
                }
                close(io, CompletionChannel.class);
            }
            case 36 -> {
                Object cq = PUMPS.get(in(io, 0)).queue.poll();
                Long at = cq == null ? null : C_STRUCT.get(cq);
                if (at == null) {
                    return Errno.EAGAIN;
                }
                out(io, 1, at);
            }
            case 37 -> {
                AsyncEvent ev = (AsyncEvent) PUMPS.get(in(io, 0)).queue.poll();
                if (ev == null) {
                    return Errno.EAGAIN;
                }
                out(io, 1, ev.type().value());
                Object element = ev.qp() != null ? ev.qp() : ev.cq() != null ? ev.cq() : ev.srq();
                Long at = element == null ? null : C_STRUCT.get(element);
                out(io, 2, at == null ? 0 : at);
                out(io, 3, element == null ? ev.portNum() : 0);
            }
            case 38 -> get(in(io, 0), CompletionQueue.class).modifyModeration(inInt(io, 1), inInt(io, 2));
            case 60 -> {
                get(in(io, 0), QueuePair.class).attachMulticast(gid(io, 1), inInt(io, 3));
                MCAST.merge(in(io, 0), 1, Integer::sum);
            }
            case 61 -> {
                get(in(io, 0), QueuePair.class).detachMulticast(gid(io, 1), inInt(io, 3));
                MCAST.merge(in(io, 0), -1, Integer::sum);
            }
            case 70 -> out(io, 3, get(in(io, 0), Context.class).queryPkey(inInt(io, 1), inInt(io, 2)));
            case 71 -> out(io, 3, get(in(io, 0), Context.class).pkeyIndex(inInt(io, 1), inInt(io, 2)));
            case 72 -> {
                GidEntry e = get(in(io, 0), Context.class).queryGidEntry(inInt(io, 1), inInt(io, 2));
                putGidEntry(MemorySegment.ofAddress(in(io, 3)).reinterpret(GID_ENTRY_BYTES), e);
            }
            case 73 -> {
                long max = in(io, 2);
                List<GidEntry> es = get(in(io, 0), Context.class).queryGidTable((int) Math.min(max, Integer.MAX_VALUE));
                MemorySegment at = MemorySegment.ofAddress(in(io, 1)).reinterpret(es.size() * in(io, 3));
                for (int i = 0; i < es.size(); i++) {
                    putGidEntry(at.asSlice(i * in(io, 3), GID_ENTRY_BYTES), es.get(i));
                }
                out(io, 4, es.size());
            }
            case 74 -> {
                return queryDeviceEx(io);
            }
            case 75 -> out(io, 1, get(in(io, 0), Context.class).queryRawClock());
            case 76 -> {
                // struct ibv_sge: addr (8), length (4), lkey (4)
                int n = inInt(io, 4);
                MemorySegment at = MemorySegment.ofAddress(in(io, 3)).reinterpret(16L * n);
                List<Sge> sges = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    sges.add(new Sge(at.get(JAVA_LONG, 16L * i), at.get(JAVA_INT, 16L * i + 8),
                            at.get(JAVA_INT, 16L * i + 12)));
                }
                get(in(io, 0), ProtectionDomain.class).adviseMr(MrAdvice.values()[inInt(io, 1)], inInt(io, 2), sges);
            }
            case 77 -> {
                Ece ece = get(in(io, 0), QueuePair.class).queryEce();
                out(io, 1, ece.vendorId());
                out(io, 2, ece.options());
                out(io, 3, ece.compMask());
            }
            case 78 -> get(in(io, 0), QueuePair.class).setEce(new Ece(inInt(io, 1), inInt(io, 2), inInt(io, 3)));
            case 80 -> {
                if (in(io, 3) != 0) { // struct ibv_alloc_dm_attr's comp_mask: no field past log_align_req is known
                    return Errno.EINVAL;
                }
                out(io, 4, put(get(in(io, 0), Context.class).allocDm(in(io, 1), inInt(io, 2))));
            }
            case 81 -> close(io, DeviceMemory.class);
            case 82 -> get(in(io, 0), DeviceMemory.class).copyToDm(in(io, 1), host(in(io, 2), in(io, 3)));
            case 83 -> get(in(io, 0), DeviceMemory.class).copyFromDm(in(io, 1), host(in(io, 2), in(io, 3)));
            case 84 -> {
                MemoryRegion mr = get(in(io, 0), ProtectionDomain.class).registerDeviceMemory(
                        get(in(io, 1), DeviceMemory.class), in(io, 2), in(io, 3), inInt(io, 4));
                long h = put(mr);
                HOSTLESS_REGIONS.add(h);
                out(io, 5, h);
                out(io, 6, mr.lkey());
                out(io, 7, mr.rkey());
            }
            case 85 -> reregMr(io);
            case 86 -> {
                MemoryRegion mr = get(in(io, 0), ProtectionDomain.class).registerDmabuf(inInt(io, 4), in(io, 1),
                        in(io, 2), in(io, 3), inInt(io, 5));
                long h = put(mr);
                HOSTLESS_REGIONS.add(h);
                out(io, 6, h);
                out(io, 7, mr.lkey());
                out(io, 8, mr.rkey());
            }
            case 87 -> {
                // struct ibv_xrcd_init_attr: emu_ibverbs.c checked the comp_mask as libibverbs does
                out(io, 4, put(get(in(io, 0), Context.class).openXrcd(inInt(io, 2), inInt(io, 3))));
            }
            case 88 -> close(io, XrcDomain.class);
            case 89 -> {
                return createXrcSrq(io);
            }
            case 90 -> out(io, 1, get(in(io, 0), SharedReceiveQueue.class).srqNum());
            case 91 -> {
                if (inInt(io, 3) != QpType.XRC_RECV.value()) { // as the kernel's ib_uverbs_open_qp answers
                    return Errno.EINVAL;
                }
                QueuePair qp = get(in(io, 1), XrcDomain.class).openQp(inInt(io, 2));
                out(io, 13, put(qp));
                C_STRUCT.put(qp, in(io, 20));
                out(io, 14, qp.qpNum());
            }
            case 92 -> get(in(io, 0), QueuePair.class).modifyRateLimit(new QpRateLimit(inInt(io, 1), inInt(io, 2),
                    inInt(io, 3)));
            case 64 -> out(io, 2, get(in(io, 0), CompletionQueue.class).resize(inInt(io, 1)));
            case 65 -> initAhFromWc(io);
            default -> {
                return Errno.ENOSYS;
            }
        }
        return 0;
    }

    /** The GID in slots {@code at} and {@code at + 1}: its 16 raw bytes, network order. */
    private static Gid gid(MemorySegment io, int at) {
        return Gid.of(io.asSlice(8L * at, 16).toArray(JAVA_BYTE));
    }

    /** The host memory a verb names by address: {@code len} bytes from {@code addr}. */
    private static MemorySegment host(long addr, long len) {
        return MemorySegment.ofAddress(addr).reinterpret(len);
    }

    private static void close(MemorySegment io, Class<? extends AutoCloseable> type) throws Exception {
        long h = in(io, 0);
        AutoCloseable o = get(h, type);
        // a region of device memory or of a dma-buf holds no host memory that inline data could be copied from
        boolean region = o instanceof MemoryRegion && !HOSTLESS_REGIONS.contains(h);
        InFlightCalls.destroying(h, region ? ((MemoryRegion) o).address() : 0, region ? ((MemoryRegion) o).length() : 0);
        try {
            o.close();
            OBJECTS.remove(h);
            HOSTLESS_REGIONS.remove(h);
        } finally {
            InFlightCalls.destroyed(h);
        }
    }

    /** What the library knows of its objects, for {@link InFlightCalls}. */
    private static final InFlightCalls.Liveness LIVE = new InFlightCalls.Liveness() {
        @Override
        public boolean destroyed(long h) {
            return !OBJECTS.containsKey(h);
        }

        @Override
        public boolean registered(long addr, long len) {
            for (Map.Entry<Long, Object> e : OBJECTS.entrySet()) {
                try {
                    if (e.getValue() instanceof MemoryRegion mr && !HOSTLESS_REGIONS.contains(e.getKey()) && !mr.isClosed()
                            && mr.address() <= addr && addr + len <= mr.address() + mr.length()) {
                        return true;
                    }
                } catch (IllegalStateException closedMeanwhile) {
                    // deregistered since isClosed(): it holds nothing
                }
            }
            return false;
        }
    };

    private static void queryDevice(MemorySegment io) {
        long h = in(io, 0);
        DeviceAttributes d;
        int flags;
        if (h == 0) { // ibv_get_device_guid: no context
            try (Context c = device().open()) {
                d = c.queryDevice();
                flags = capFlags(c, d);
            }
        } else {
            Context c = get(h, Context.class);
            d = c.queryDevice();
            flags = capFlags(c, d);
        }
        long[] v = {d.nodeGuid(), d.sysImageGuid(), d.maxMrSize(), d.pageSizeCap(), d.vendorId(), d.vendorPartId(),
            d.hwVer(), d.maxQp(), d.maxQpWr(), flags, d.maxSge(), d.maxSgeRd(), d.maxCq(), d.maxCqe(),
            d.maxMr(), d.maxPd(), d.maxQpRdAtom(), d.maxEeRdAtom(), d.maxResRdAtom(), d.maxQpInitRdAtom(),
            d.maxEeInitRdAtom(), d.atomicCap().value(), d.maxEe(), d.maxRdd(), d.maxMw(), d.maxRawIpv6Qp(),
            d.maxRawEthyQp(), d.maxMcastGrp(), d.maxMcastQpAttach(), d.maxTotalMcastQpAttach(), d.maxAh(),
            d.maxFmr(), d.maxMapPerFmr(), d.maxSrq(), d.maxSrqWr(), d.maxSrqSge(), d.maxPkeys(),
            d.localCaAckDelay(), d.physPortCnt()};
        for (int i = 0; i < v.length; i++) {
            out(io, 1 + i, v[i]);
        }
        byte[] fw = d.fwVer().getBytes(StandardCharsets.US_ASCII);
        MemorySegment text = io.asSlice(40 * 8, 64);
        text.fill((byte) 0);
        MemorySegment.copy(fw, 0, text, JAVA_BYTE, 0, Math.min(fw.length, 63));
    }

    /**
     * The device's {@code device_cap_flags}, with {@code IBV_DEVICE_XRC} exactly when the emulated device does XRC
     * ({@link org.verbs4j.Capabilities#xrc()}): the native layer probes XRC only on a device that claims it.
     */
    private static int capFlags(Context c, DeviceAttributes d) {
        int flags = d.deviceCapFlags();
        return c.capabilities().xrc() ? flags | DeviceAttributes.CAP_XRC : flags & ~DeviceAttributes.CAP_XRC;
    }

    /**
     * What {@code ibv_query_device_ex} answers instead of the engine's own, so that a test can give every field a
     * value of its own and see each reach its place; null for the engine's answer.
     */
    static volatile DeviceAttributesEx deviceExForTest;
    /** The errno {@code ibv_query_device_ex} answers instead, so that a test can drive a failing query; 0 for none. */
    static volatile int deviceExErrnoForTest;

    /** The fields of {@code struct ibv_device_attr_ex} after {@code orig_attr}, in slots 1 to 33, in its order. */
    private static int queryDeviceEx(MemorySegment io) {
        DeviceAttributesEx x = get(in(io, 0), Context.class).queryDeviceEx();
        DeviceAttributesEx forTest = deviceExForTest;
        if (forTest != null) {
            x = forTest;
        }
        if (deviceExErrnoForTest != 0) {
            return deviceExErrnoForTest;
        }
        DeviceAttributesEx.OdpCaps odp = x.odpCaps();
        DeviceAttributesEx.RssCaps rss = x.rssCaps();
        DeviceAttributesEx.PacketPacingCaps pacing = x.packetPacingCaps();
        DeviceAttributesEx.TmCaps tm = x.tmCaps();
        DeviceAttributesEx.PciAtomicCaps pci = x.pciAtomicCaps();
        long[] v = {x.compMask(), odp.generalCaps(), odp.rcOdpCaps(), odp.ucOdpCaps(), odp.udOdpCaps(),
            x.completionTimestampMask(), x.hcaCoreClock(), x.deviceCapFlagsEx(), x.tsoCaps().maxTso(),
            x.tsoCaps().supportedQpts(), rss.supportedQpts(), rss.maxRwqIndirectionTables(),
            rss.maxRwqIndirectionTableSize(), rss.rxHashFieldsMask(), rss.rxHashFunction(), x.maxWqTypeRq(),
            pacing.qpRateLimitMin(), pacing.qpRateLimitMax(), pacing.supportedQpts(), x.rawPacketCaps(),
            tm.maxRndvHdrSize(), tm.maxNumTags(), tm.flags(), tm.maxOps(), tm.maxSge(), x.cqModCaps().maxCqCount(),
            x.cqModCaps().maxCqPeriod(), x.maxDmSize(), pci.fetchAdd(), pci.swap(), pci.compareSwap(),
            x.xrcOdpCaps(), x.physPortCntEx()};
        for (int i = 0; i < v.length; i++) {
            out(io, 1 + i, v[i]);
        }
        return 0;
    }

    private static void queryPort(MemorySegment io) {
        PortAttributes p = get(in(io, 0), Context.class).queryPort(inInt(io, 1));
        long[] v = {p.state().value(), p.maxMtu().value(), p.activeMtu().value(), p.gidTblLen(), p.portCapFlags(),
            p.maxMsgSz(), p.badPkeyCntr(), p.qkeyViolCntr(), p.pkeyTblLen(), p.lid(), p.smLid(), p.lmc(),
            p.maxVlNum(), p.smSl(), p.subnetTimeout(), p.initTypeReply(), p.activeWidth(), p.activeSpeed(),
            p.physState(), p.linkLayer().value(), p.flags(), p.portCapFlags2()};
        for (int i = 0; i < v.length; i++) {
            out(io, 2 + i, v[i]);
        }
    }

    private static void queryGid(MemorySegment io) {
        Gid g = get(in(io, 0), Context.class).queryGid(inInt(io, 1), inInt(io, 2));
        byte[] raw = g.toBytes();
        MemorySegment.copy(raw, 0, io, JAVA_BYTE, 4 * 8, 16);
        // the private ibv_query_gid_type's answer: 1 for RoCE v2, else 0, as for an empty entry
        boolean v2 = !g.isZero()
                && get(in(io, 0), Context.class).queryGidType(inInt(io, 1), inInt(io, 2)) == GidType.ROCE_V2;
        out(io, 3, v2 ? 1 : 0);
    }

    /** {@code sizeof(struct ibv_gid_entry)}: the GID, then gid_index, port_num, gid_type, ndev_ifindex. */
    private static final long GID_ENTRY_BYTES = 32;

    private static void putGidEntry(MemorySegment to, GidEntry e) {
        MemorySegment.copy(e.gid().toBytes(), 0, to, JAVA_BYTE, 0, 16);
        to.set(JAVA_INT, 16, e.gidIndex());
        to.set(JAVA_INT, 20, e.portNum());
        to.set(JAVA_INT, 24, e.type().value());
        to.set(JAVA_INT, 28, e.ndevIfindex());
    }

    private static void regMr(MemorySegment io) {
        ProtectionDomain pd = get(in(io, 0), ProtectionDomain.class);
        long addr = in(io, 1);
        long len = in(io, 2);
        MemorySegment seg = MemorySegment.ofAddress(addr).reinterpret(len);
        MemoryRegion mr = pd.registerMemory(seg, inInt(io, 3));
        out(io, 5, put(mr));
        out(io, 6, mr.lkey());
        out(io, 7, mr.rkey());
    }

    /** {@code ibv_rereg_mr}: what {@code flags} names, the rest ignored as the region's own method ignores it. */
    private static void reregMr(MemorySegment io) {
        MemoryRegion mr = get(in(io, 0), MemoryRegion.class);
        int flags = inInt(io, 1);
        ProtectionDomain pd = (flags & ReregFlags.CHANGE_PD) != 0 ? get(in(io, 2), ProtectionDomain.class) : null;
        MemorySegment seg = (flags & ReregFlags.CHANGE_TRANSLATION) != 0
                ? MemorySegment.ofAddress(in(io, 3)).reinterpret(in(io, 4)) : null;
        mr.reregister(flags, pd, seg, inInt(io, 5));
        out(io, 6, mr.lkey());
        out(io, 7, mr.rkey());
    }

    private static void pollCq(MemorySegment io) {
        CompletionQueue cq = get(in(io, 0), CompletionQueue.class);
        int n = inInt(io, 1);
        MemorySegment flat = MemorySegment.ofAddress(in(io, 2)).reinterpret((long) n * WC_SLOTS * 8);
        WorkCompletionBatch b = new WorkCompletionBatch(n);
        int got = cq.poll(b);
        for (int i = 0; i < got; i++) {
            long base = (long) i * WC_SLOTS;
            long[] v = {b.wrId(i), b.status(i).value(), b.opcode(i).value(), b.vendorErr(i), b.byteLen(i),
                b.immData(i), b.qpNum(i), b.srcQp(i), b.wcFlags(i), b.pkeyIndex(i), b.slid(i), b.sl(i),
                b.dlidPathBits(i), b.completionTimestamp(i), b.completionWallclockNs(i)};
            for (int k = 0; k < WC_SLOTS; k++) {
                flat.setAtIndex(JAVA_LONG, base + k, v[k]);
            }
        }
        out(io, 3, got);
    }

    /** {@code ibv_create_srq_ex} of an XRC SRQ: its domain, PD and CQ; the granted sizes back as for a basic one. */
    private static int createXrcSrq(MemorySegment io) {
        int mask = inInt(io, 1);
        // TYPE, PD, XRCD and CQ are the fields an XRC SRQ has; tag matching (and any later field) the engine has not
        if ((mask & ~0xf) != 0 || inInt(io, 2) != SRQT_XRC) {
            return Errno.EOPNOTSUPP;
        }
        if (mask != 0xf) {
            return Errno.EINVAL;
        }
        SharedReceiveQueue srq = get(in(io, 4), XrcDomain.class).createSrq(get(in(io, 3), ProtectionDomain.class),
                get(in(io, 5), CompletionQueue.class), new SrqInitAttributes(inInt(io, 6), inInt(io, 7), inInt(io, 8)));
        out(io, 10, put(srq));
        C_STRUCT.put(srq, in(io, 9));
        SrqInitAttributes a = srq.query();
        out(io, 11, a.maxWr());
        out(io, 12, a.maxSge());
        return 0;
    }

    /** {@code IBV_SRQT_XRC} of {@code enum ibv_srq_type}. */
    private static final int SRQT_XRC = 1;

    private static void createQp(MemorySegment io) {
        if (inInt(io, 1) == QpType.XRC_RECV.value()) {
            // in the XRC domain of slot 21, with no PD, CQ or queue: nothing else of the request is read
            putQp(io, get(in(io, 21), XrcDomain.class).createRecvQp());
            return;
        }
        ProtectionDomain pd = get(in(io, 0), ProtectionDomain.class);
        QpInitAttributes.Builder b = QpInitAttributes.builder(QpType.of(inInt(io, 1)))
                .sendCq(get(in(io, 2), CompletionQueue.class)).recvCq(get(in(io, 3), CompletionQueue.class))
                .maxSendWr(inInt(io, 5)).maxRecvWr(inInt(io, 6)).maxSendSge(inInt(io, 7))
                .maxRecvSge(inInt(io, 8)).maxInlineData(inInt(io, 9)).sqSigAll(in(io, 10) != 0);
        if (in(io, 4) != 0) {
            b.srq(get(in(io, 4), SharedReceiveQueue.class));
        }
        long ops = in(io, 11);
        if (ops != -1) {
            Set<WrOpcode> set = EnumSet.noneOf(WrOpcode.class);
            long known = 0;
            for (WrOpcode o : WrOpcode.values()) {
                if (o.sendOpsFlag() != 0 && (ops & o.sendOpsFlag()) != 0) {
                    set.add(o);
                    known |= o.sendOpsFlag();
                }
            }
            if ((ops & ~known) != 0) {
                throw new UnsupportedOperationException("send_ops_flags 0x" + Long.toHexString(ops & ~known));
            }
            b.sendOps(set);
        }
        if (in(io, 12) != 0) {
            b.threadDomain(get(in(io, 12), ThreadDomain.class));
        }
        putQp(io, pd.createQp(b.build()));
    }

    /** A new QP's handle, number and granted sizes into slots 13 to 19. */
    private static void putQp(MemorySegment io, QueuePair qp) {
        out(io, 13, put(qp));
        C_STRUCT.put(qp, in(io, 20));
        out(io, 14, qp.qpNum());
        QpCapabilities c = qp.initAttributes().cap();
        out(io, 15, c.maxSendWr());
        out(io, 16, c.maxRecvWr());
        out(io, 17, c.maxSendSge());
        out(io, 18, c.maxRecvSge());
        out(io, 19, c.maxInlineData());
    }

    private static AhAttributes ah(MemorySegment io, int at) {
        GlobalRoute grh = null;
        if (in(io, at + 4) != 0) {
            byte[] raw = new byte[16];
            MemorySegment.copy(io, JAVA_BYTE, (at + 6) * 8L, raw, 0, 16);
            grh = new GlobalRoute(Gid.of(raw), inInt(io, at + 8), inInt(io, at + 9), inInt(io, at + 10),
                    inInt(io, at + 11));
        }
        return new AhAttributes(grh, inInt(io, at), inInt(io, at + 1), inInt(io, at + 2), inInt(io, at + 3),
                inInt(io, at + 5));
    }

    /** ibv_init_ah_from_wc: the completion's wc_flags, slid, sl and dlid_path_bits, and the 40 GRH bytes. */
    private static void initAhFromWc(MemorySegment io) {
        WorkCompletion wc = new WorkCompletion(0, WcStatus.SUCCESS, WcOpcode.RECV, 0, 0, 0, 0, 0, inInt(io, 2), 0,
                inInt(io, 3), inInt(io, 4), inInt(io, 5));
        MemorySegment grh = io.asSlice(6 * 8L, 40);
        putAh(io, 16, get(in(io, 0), Context.class).initAhAttributes(inInt(io, 1), wc, grh));
    }

    private static void putAh(MemorySegment io, int at, AhAttributes a) {
        if (a == null) {
            return;
        }
        out(io, at, a.dlid());
        out(io, at + 1, a.sl());
        out(io, at + 2, a.srcPathBits());
        out(io, at + 3, a.staticRate());
        out(io, at + 5, a.portNum());
        if (a.grh() != null) {
            out(io, at + 4, 1);
            MemorySegment.copy(a.grh().dgid().toBytes(), 0, io, JAVA_BYTE, (at + 6) * 8L, 16);
            out(io, at + 8, a.grh().flowLabel());
            out(io, at + 9, a.grh().sgidIndex());
            out(io, at + 10, a.grh().hopLimit());
            out(io, at + 11, a.grh().trafficClass());
        }
    }

    // ibv_qp_attr_mask bits
    private static final int STATE = 1;
    private static final int CUR_STATE = 1 << 1;
    private static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    private static final int ACCESS_FLAGS = 1 << 3;
    private static final int PKEY_INDEX = 1 << 4;
    private static final int PORT = 1 << 5;
    private static final int QKEY = 1 << 6;
    private static final int AV = 1 << 7;
    private static final int PATH_MTU = 1 << 8;
    private static final int TIMEOUT = 1 << 9;
    private static final int RETRY_CNT = 1 << 10;
    private static final int RNR_RETRY = 1 << 11;
    private static final int RQ_PSN = 1 << 12;
    private static final int MAX_QP_RD_ATOMIC = 1 << 13;
    private static final int ALT_PATH = 1 << 14;
    private static final int MIN_RNR_TIMER = 1 << 15;
    private static final int SQ_PSN = 1 << 16;
    private static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    private static final int PATH_MIG_STATE = 1 << 18;
    private static final int CAP = 1 << 19;
    private static final int DEST_QPN = 1 << 20;
    private static final int RATE_LIMIT = 1 << 25;

    private static void modifyQp(MemorySegment io) {
        QueuePair qp = get(in(io, 0), QueuePair.class);
        int mask = inInt(io, 1);
        QpAttributes a = new QpAttributes();
        if ((mask & STATE) != 0) {
            a.state(QpState.of(inInt(io, 2)));
        }
        if ((mask & CUR_STATE) != 0) {
            a.curState(QpState.of(inInt(io, 3)));
        }
        if ((mask & PATH_MTU) != 0) {
            a.pathMtu(Mtu.of(inInt(io, 4)));
        }
        if ((mask & PATH_MIG_STATE) != 0) {
            a.pathMigState(PathMigState.of(inInt(io, 5)));
        }
        if ((mask & QKEY) != 0) {
            a.qkey(inInt(io, 6));
        }
        if ((mask & RQ_PSN) != 0) {
            a.rqPsn(inInt(io, 7));
        }
        if ((mask & SQ_PSN) != 0) {
            a.sqPsn(inInt(io, 8));
        }
        if ((mask & DEST_QPN) != 0) {
            a.destQpNum(inInt(io, 9));
        }
        if ((mask & ACCESS_FLAGS) != 0) {
            a.accessFlags(inInt(io, 10));
        }
        if ((mask & CAP) != 0) {
            a.cap(new QpCapabilities(inInt(io, 11), inInt(io, 12), inInt(io, 13), inInt(io, 14), inInt(io, 15)));
        }
        if ((mask & AV) != 0) {
            a.ahAttr(ah(io, 16));
        }
        if ((mask & ALT_PATH) != 0) {
            a.altPath(ah(io, 28), inInt(io, 41), inInt(io, 51), inInt(io, 52));
        }
        if ((mask & PKEY_INDEX) != 0) {
            a.pkeyIndex(inInt(io, 40));
        }
        if ((mask & EN_SQD_ASYNC_NOTIFY) != 0) {
            a.enSqdAsyncNotify(in(io, 42) != 0);
        }
        if ((mask & MAX_QP_RD_ATOMIC) != 0) {
            a.maxRdAtomic(inInt(io, 44));
        }
        if ((mask & MAX_DEST_RD_ATOMIC) != 0) {
            a.maxDestRdAtomic(inInt(io, 45));
        }
        if ((mask & MIN_RNR_TIMER) != 0) {
            a.minRnrTimer(inInt(io, 46));
        }
        if ((mask & PORT) != 0) {
            a.port(inInt(io, 47));
        }
        if ((mask & TIMEOUT) != 0) {
            a.timeout(inInt(io, 48));
        }
        if ((mask & RETRY_CNT) != 0) {
            a.retryCnt(inInt(io, 49));
        }
        if ((mask & RNR_RETRY) != 0) {
            a.rnrRetry(inInt(io, 50));
        }
        if ((mask & RATE_LIMIT) != 0) {
            a.rateLimit(inInt(io, 53));
        }
        a.mask(mask);
        qp.modify(a);
    }

    private static void queryQp(MemorySegment io) {
        QueuePair qp = get(in(io, 0), QueuePair.class);
        QpAttributes a = qp.query();
        out(io, 2, a.state() == null ? 0 : a.state().value());
        out(io, 3, a.curState() == null ? 0 : a.curState().value());
        out(io, 4, a.pathMtu() == null ? 0 : a.pathMtu().value());
        out(io, 5, a.pathMigState() == null ? 0 : a.pathMigState().value());
        out(io, 6, a.qkey());
        out(io, 7, a.rqPsn());
        out(io, 8, a.sqPsn());
        out(io, 9, a.destQpNum());
        out(io, 10, a.accessFlags());
        QpCapabilities c = a.cap() != null ? a.cap() : qp.initAttributes().cap();
        out(io, 11, c.maxSendWr());
        out(io, 12, c.maxRecvWr());
        out(io, 13, c.maxSendSge());
        out(io, 14, c.maxRecvSge());
        out(io, 15, c.maxInlineData());
        putAh(io, 16, a.ahAttr());
        putAh(io, 28, a.altAhAttr());
        out(io, 40, a.pkeyIndex());
        out(io, 41, a.altPkeyIndex());
        out(io, 42, a.enSqdAsyncNotify() ? 1 : 0);
        out(io, 43, a.sqDraining() ? 1 : 0);
        out(io, 44, a.maxRdAtomic());
        out(io, 45, a.maxDestRdAtomic());
        out(io, 46, a.minRnrTimer());
        out(io, 47, a.port());
        out(io, 48, a.timeout());
        out(io, 49, a.retryCnt());
        out(io, 50, a.rnrRetry());
        out(io, 51, a.altPort());
        out(io, 52, a.altTimeout());
        out(io, 53, a.rateLimit());
        out(io, 54, qp.initAttributes().sqSigAll() ? 1 : 0);
    }

    private static Sge[] sges(MemorySegment flat, long first, int n) {
        Sge[] s = new Sge[n];
        for (int i = 0; i < n; i++) {
            long at = (first + i) * 3;
            s[i] = new Sge(flat.getAtIndex(JAVA_LONG, at), (int) flat.getAtIndex(JAVA_LONG, at + 1),
                    (int) flat.getAtIndex(JAVA_LONG, at + 2));
        }
        return s;
    }

    private static void postSend(MemorySegment io) {
        QueuePair qp = get(in(io, 0), QueuePair.class);
        int n = inInt(io, 1);
        MemorySegment w = MemorySegment.ofAddress(in(io, 2)).reinterpret((long) n * WR_SLOTS * 8);
        long nsge = 0;
        for (int i = 0; i < n; i++) {
            nsge += Math.max(0, (int) w.getAtIndex(JAVA_LONG, (long) i * WR_SLOTS + 12));
        }
        MemorySegment g = MemorySegment.ofAddress(in(io, 3)).reinterpret(Math.max(1, nsge) * 24);
        long[][] x = new long[n][WR_SLOTS];
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(w, JAVA_LONG, (long) i * WR_SLOTS * 8, x[i], 0, WR_SLOTS);
        }
        InFlightCalls.Call call = InFlightCalls.enter("ibv_post_send", named(qp, x), inlineRanges(g, x),
                LIVE);
        try {
            List<SendWr> wrs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                SendWr wr = new SendWr().wrId(x[i][0]).opcode(WrOpcode.of((int) x[i][1])).sendFlags((int) x[i][2])
                        .sgList(sges(g, x[i][11], (int) x[i][12]));
                fill(qp, wr, x[i]);
                wrs.add(wr);
            }
            qp.postSend(wrs);
        } finally {
            call.close(); // its EFAULT, if any, replaces what the engine said about the destroyed object
        }
    }

    /** The address handles (UD), windows and regions (BIND_MW) that flat send WRs name. */
    private static long[] named(QueuePair qp, long[][] x) {
        long[] h = new long[2 * x.length];
        for (int i = 0; i < x.length; i++) {
            if (qp.type() == QpType.UD) {
                h[2 * i] = x[i][8];
            } else if (x[i][1] == WrOpcode.BIND_MW.value()) {
                h[2 * i] = x[i][13];
                h[2 * i + 1] = x[i][15];
            }
        }
        return h;
    }

    /** The (address, length) of every SGE of the INLINE WRs among flat send WRs. */
    private static long[] inlineRanges(MemorySegment g, long[][] x) {
        List<Long> r = new ArrayList<>();
        for (long[] wr : x) {
            if ((wr[2] & SendFlags.INLINE) != 0) {
                for (Sge s : sges(g, wr[11], (int) wr[12])) {
                    r.add(s.addr());
                    r.add(Integer.toUnsignedLong(s.length()));
                }
            }
        }
        return r.stream().mapToLong(Long::longValue).toArray();
    }

    private static void fill(QueuePair qp, SendWr wr, long[] x) {
        WrOpcode op = wr.opcode();
        switch (op) {
            case SEND_WITH_INV, LOCAL_INV -> wr.invalidateRkey((int) x[3]);
            case SEND_WITH_IMM, RDMA_WRITE_WITH_IMM -> wr.immData((int) x[3]);
            default -> { }
        }
        if (qp.type() == QpType.UD) {
            wr.ud(get(x[8], AddressHandle.class), (int) x[9], (int) x[10]);
        } else if (op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD) {
            wr.atomic(x[4], x[6], x[7], (int) x[5]);
        } else {
            wr.rdma(x[4], (int) x[5]);
        }
        if (qp.type() == QpType.XRC_SEND) {
            wr.remoteSrqn((int) x[20]);
        }
        if (op == WrOpcode.BIND_MW) {
            MemoryRegion mr = get(x[15], MemoryRegion.class);
            wr.bindMw(get(x[13], MemoryWindow.class), (int) x[14],
                    mr == null ? null : new MwBindInfo(mr, x[16], x[17], (int) x[18]));
        }
    }

    private static void postRecv(MemorySegment io, boolean srq) {
        int n = inInt(io, 1);
        MemorySegment w = MemorySegment.ofAddress(in(io, 2)).reinterpret((long) n * 24);
        long nsge = 0;
        for (int i = 0; i < n; i++) {
            nsge += Math.max(0, (int) w.getAtIndex(JAVA_LONG, (long) i * 3 + 2));
        }
        MemorySegment g = MemorySegment.ofAddress(in(io, 3)).reinterpret(Math.max(1, nsge) * 24);
        List<RecvWr> wrs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            wrs.add(new RecvWr().wrId(w.getAtIndex(JAVA_LONG, i * 3L))
                    .sgList(sges(g, w.getAtIndex(JAVA_LONG, i * 3L + 1), (int) w.getAtIndex(JAVA_LONG, i * 3L + 2))));
        }
        if (srq) {
            get(in(io, 0), SharedReceiveQueue.class).postRecv(wrs);
        } else {
            get(in(io, 0), QueuePair.class).postRecv(wrs);
        }
    }

    /** ibv_wr_complete: the session's WRs replayed through the emulated WR session, completed or aborted as one. */
    private static void wrComplete(MemorySegment io) {
        QueuePair qp = get(in(io, 0), QueuePair.class);
        int n = inInt(io, 1);
        MemorySegment w = MemorySegment.ofAddress(in(io, 2)).reinterpret((long) n * WR_SLOTS * 8);
        long nsge = 0;
        for (int i = 0; i < n; i++) {
            nsge += w.getAtIndex(JAVA_LONG, (long) i * WR_SLOTS + 12);
        }
        MemorySegment g = MemorySegment.ofAddress(in(io, 3)).reinterpret(Math.max(1, nsge) * 24);
        long inl = in(io, 4);
        WrSession s = qp.startWr();
        try {
            for (int i = 0; i < n; i++) {
                long b = (long) i * WR_SLOTS;
                long[] x = new long[WR_SLOTS];
                for (int k = 0; k < WR_SLOTS; k++) {
                    x[k] = w.getAtIndex(JAVA_LONG, b + k);
                }
                s.wrId(x[0]);
                s.wrFlags((int) x[2]);
                int rkey = (int) x[5];
                switch (WrOpcode.of((int) x[1])) {
                    case RDMA_WRITE -> s.rdmaWrite(rkey, x[4]);
                    case RDMA_WRITE_WITH_IMM -> s.rdmaWriteImm(rkey, x[4], (int) x[3]);
                    case RDMA_READ -> s.rdmaRead(rkey, x[4]);
                    case SEND -> s.send();
                    case SEND_WITH_IMM -> s.sendImm((int) x[3]);
                    case SEND_WITH_INV -> s.sendInv((int) x[3]);
                    case ATOMIC_CMP_AND_SWP -> s.atomicCmpSwp(rkey, x[4], x[6], x[7]);
                    case ATOMIC_FETCH_AND_ADD -> s.atomicFetchAdd(rkey, x[4], x[6]);
                    case ATOMIC_WRITE -> s.atomicWrite(rkey, x[4], x[6]);
                    case LOCAL_INV -> s.localInv((int) x[3]);
                    case BIND_MW -> s.bindMw(get(x[13], MemoryWindow.class), (int) x[14],
                            new MwBindInfo(get(x[15], MemoryRegion.class), x[16], x[17], (int) x[18]));
                    default -> throw new UnsupportedOperationException("opcode " + x[1]);
                }
                int cnt = (int) x[12];
                Sge[] list = sges(g, x[11], cnt);
                // x[19]: which data setter the WR had (none, SGE, inline); a list of 0 entries is replayed as one.
                if (x[19] == 2) {
                    MemorySegment[] bufs = new MemorySegment[cnt];
                    for (int k = 0; k < cnt; k++) {
                        bufs[k] = MemorySegment.ofAddress(inl + list[k].addr()).reinterpret(list[k].length());
                    }
                    if (cnt == 1) {
                        s.setInlineData(bufs[0]);
                    } else {
                        s.setInlineDataList(bufs, cnt);
                    }
                } else if (x[19] == 1 && cnt == 1) {
                    s.setSge(list[0].lkey(), list[0].addr(), list[0].length());
                } else if (x[19] == 1) {
                    s.setSgeList(list, cnt);
                }
                if (qp.type() == QpType.UD) {
                    s.setUdAddr(get(x[8], AddressHandle.class), (int) x[9], (int) x[10]);
                } else if (qp.type() == QpType.XRC_SEND) {
                    s.setXrcSrqn((int) x[20]);
                }
            }
            s.complete();
        } finally {
            if (s.isActive()) {
                s.abort();
            }
        }
    }
}
