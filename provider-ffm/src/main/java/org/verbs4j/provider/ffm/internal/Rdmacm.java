package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;

/**
 * The functions of {@code librdmacm.so.1} the connection manager calls, one {@code static final MethodHandle}
 * each, capturing {@code errno} into the same per-thread segment as {@link Ibverbs} ({@link Ibverbs#errno()}
 * reads it). Pointers pass as 64-bit integers, which the x86-64 System V ABI passes and returns exactly as
 * pointers: {@link LibRdmaCm} works on addresses. Loading this class loads librdmacm and fails if it is
 * missing: check with {@code SymbolLookup.libraryLookup} first.
 */
public final class Rdmacm {
    private Rdmacm() {}

    private static final SymbolLookup LIB = SymbolLookup.libraryLookup(LibRdmaCm.SONAME, Arena.global());

    private static MethodHandle bind(String name, MemoryLayout result, MemoryLayout... args) {
        FunctionDescriptor fd = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return Ibverbs.LINKER.downcallHandle(LIB.find(name).orElseThrow(
                () -> new UnsatisfiedLinkError(LibRdmaCm.SONAME + " does not export " + name)), fd, Ibverbs.CAPTURE_ERRNO);
    }

    private static final MemoryLayout P = JAVA_LONG;
    private static final MemoryLayout I = JAVA_INT;

    /** {@code malloc(3)} and {@code free(3)}: the per-call blocks of {@link LibRdmaCm} are freed explicitly. */
    public static final MethodHandle malloc$mh = Ibverbs.LINKER.downcallHandle(
            Ibverbs.LINKER.defaultLookup().find("malloc").orElseThrow(), FunctionDescriptor.of(P, JAVA_LONG));
    public static final MethodHandle free$mh = Ibverbs.LINKER.downcallHandle(
            Ibverbs.LINKER.defaultLookup().find("free").orElseThrow(), FunctionDescriptor.ofVoid(P));

    public static final MethodHandle rdma_create_event_channel$mh = bind("rdma_create_event_channel", P);
    public static final MethodHandle rdma_destroy_event_channel$mh = bind("rdma_destroy_event_channel", null, P);
    public static final MethodHandle rdma_create_id$mh = bind("rdma_create_id", I, P, P, P, I);
    public static final MethodHandle rdma_destroy_id$mh = bind("rdma_destroy_id", I, P);
    public static final MethodHandle rdma_bind_addr$mh = bind("rdma_bind_addr", I, P, P);
    public static final MethodHandle rdma_resolve_addr$mh = bind("rdma_resolve_addr", I, P, P, P, I);
    public static final MethodHandle rdma_resolve_route$mh = bind("rdma_resolve_route", I, P, I);
    public static final MethodHandle rdma_listen$mh = bind("rdma_listen", I, P, I);
    public static final MethodHandle rdma_connect$mh = bind("rdma_connect", I, P, P);
    public static final MethodHandle rdma_accept$mh = bind("rdma_accept", I, P, P);
    public static final MethodHandle rdma_reject$mh = bind("rdma_reject", I, P, P, JAVA_BYTE);
    public static final MethodHandle rdma_establish$mh = bind("rdma_establish", I, P);
    public static final MethodHandle rdma_disconnect$mh = bind("rdma_disconnect", I, P);
    public static final MethodHandle rdma_migrate_id$mh = bind("rdma_migrate_id", I, P, P);
    public static final MethodHandle rdma_init_qp_attr$mh = bind("rdma_init_qp_attr", I, P, P, P);
    public static final MethodHandle rdma_set_option$mh = bind("rdma_set_option", I, P, I, I, P, JAVA_LONG);
    public static final MethodHandle rdma_join_multicast$mh = bind("rdma_join_multicast", I, P, P, P);
    public static final MethodHandle rdma_join_multicast_ex$mh = bind("rdma_join_multicast_ex", I, P, P, P);
    public static final MethodHandle rdma_leave_multicast$mh = bind("rdma_leave_multicast", I, P, P);
    public static final MethodHandle rdma_get_cm_event$mh = bind("rdma_get_cm_event", I, P, P);
    public static final MethodHandle rdma_ack_cm_event$mh = bind("rdma_ack_cm_event", I, P);

    /**
     * Calls a handle with the calling thread's errno capture segment first: these are control-path calls, so
     * {@code invokeWithArguments} keeps one line per binding.
     *
     * @return the result widened to long; 0 for a void function
     */
    public static long call(MethodHandle mh, Object... args) {
        List<Object> all = new ArrayList<>(args.length + 1);
        all.add(Ibverbs.errnoSegment());
        all.addAll(List.of(args));
        try {
            Object r = mh.invokeWithArguments(all);
            return r == null ? 0 : ((Number) r).longValue();
        } catch (Throwable t) {
            throw Ibverbs.unexpected(t);
        }
    }
}
