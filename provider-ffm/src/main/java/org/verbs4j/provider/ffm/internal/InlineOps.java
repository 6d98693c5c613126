package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.verbs4j.provider.ffm.internal.Ibverbs.LINKER;
import static org.verbs4j.provider.ffm.internal.Ibverbs.unexpected;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The data path of the {@code static inline} verbs of {@code verbs.h}, called through the function pointers they
 * read from {@code ibv_context.ops}, {@code ibv_qp_ex} and {@code ibv_cq_ex}; the control-path ops are declared once
 * in the shared {@code LibIbverbsOps} and bound by {@link FfmDeclaredLibrary}. Each handle is address-less: its first
 * argument is the function pointer. The ops return the errno (either sign) and capture none.
 */
public final class InlineOps {
    private InlineOps() {}

    private static MethodHandle fn(FunctionDescriptor fd) {
        return LINKER.downcallHandle(fd);
    }

    /**
     * A critical downcall: no thread-state transition, which is most of a short call's cost. Only for ops that
     * neither block nor call back into Java, nor make a system call: on every device the {@code ibv_wr_*} builders
     * and setters, which write the next WQE in user memory, and the {@code ibv_cq_ex} {@code read_*} ops, which
     * read the current CQE; and the {@code *_critical$mh} handles of the data path ({@code post_send},
     * {@code post_recv}, {@code poll_cq}, {@code start_poll}, {@code next_poll}, {@code end_poll},
     * {@code wr_start}, {@code wr_complete}), which the object model calls only on a device whose data path is user space, with
     * every caller of the lock they take serialized in Java (see the shared module's {@code CriticalDataPath}).
     * No heap segment is passed to them.
     */
    private static MethodHandle fnCritical(FunctionDescriptor fd) {
        return LINKER.downcallHandle(fd, Linker.Option.critical(false));
    }

    // ---- ibv_context.ops ----
    /*
     * post_send (and post_recv and post_srq_recv, which share its signature: call_ppp) takes the QP, the
     * WR list and the bad-WR word as plain addresses: the list and the word are the QP's scratch memory, kept
     * alive by the QP's posting locks and destroy order, so the linker need not acquire and release their shared
     * arena (two atomic operations each) on every post. It is not a critical call: rxe rings its doorbell with a
     * system call, and hardware providers take the send queue's spinlock.
     */
    static final MethodHandle post_send$mh = fn(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle poll_cq$mh = fn(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));

    // ---- ibv_cq_ex ----
    // The ibv_cq_ex ops take the CQ and the poll attributes as addresses: the CQ is the library's (global scope),
    // the attributes its scratch memory, and polling holds the CQ's monitor, which its destroy takes too.
    // start_poll and end_poll take and release the CQ's spinlock, and next_poll runs between them: not critical.
    static final MethodHandle start_poll$mh = fn(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    static final MethodHandle next_poll$mh = fn(FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    static final MethodHandle end_poll$mh = fn(FunctionDescriptor.ofVoid(JAVA_LONG));
    static final MethodHandle read_u32$mh = fnCritical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    static final MethodHandle read_u8$mh = fnCritical(FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG));
    /** {@code read_completion_ts}, {@code read_completion_wallclock_ns}: {@code uint64_t (*)(struct ibv_cq_ex *)}. */
    static final MethodHandle read_u64$mh = fnCritical(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));

    // ---- ibv_qp_ex ----
    /*
     * The ibv_qp_ex ops take their pointers as plain addresses: the ibv_qp_ex is the provider library's (global
     * scope, no arena to keep alive), and the session destroys its QP only after its lock is released; the other
     * pointers are the session's scratch memory or objects the session holds. So the linker does not check and
     * acquire a memory session per pointer per call. wr_start, wr_complete and wr_abort are not critical:
     * wr_start takes the send queue's spinlock, which a post_send of another thread may hold, wr_complete rings
     * the doorbell (a system call on rxe), wr_abort releases the lock. The builders and setters are critical (see
     * fnCritical). FfmIbverbsBinding calls them for the shared NativeWrSession.
     */
    static final MethodHandle wr_atomic_cmp_swp$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG,
            JAVA_LONG, JAVA_LONG));
    static final MethodHandle wr_atomic_fetch_add$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG,
            JAVA_LONG));
    static final MethodHandle wr_bind_mw$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG));
    static final MethodHandle wr_u32$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT));
    static final MethodHandle wr_rdma$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG));
    static final MethodHandle wr_rdma_write_imm$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG,
            JAVA_INT));
    static final MethodHandle wr_void$mh = fn(FunctionDescriptor.ofVoid(JAVA_LONG));
    static final MethodHandle wr_builder_void$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG));
    static final MethodHandle wr_send_tso$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_SHORT,
            JAVA_SHORT));
    static final MethodHandle wr_set_ud_addr$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_INT,
            JAVA_INT));
    static final MethodHandle wr_set_inline_data$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle wr_set_list$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle wr_set_sge$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle wr_complete$mh = fn(FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    // ---- the data path as critical calls, for devices CriticalDataPath allows (every pointer as an address) ----
    static final MethodHandle post_send_critical$mh = fnCritical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG,
            JAVA_LONG));
    static final MethodHandle poll_cq_critical$mh = fnCritical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT,
            JAVA_LONG));
    static final MethodHandle start_poll_critical$mh = fnCritical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG,
            JAVA_LONG));
    /** {@code void (*)(void *)} as a critical call: {@code end_poll}, {@code wr_start}. */
    static final MethodHandle void_critical$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG));
    /** {@code int (*)(void *)} as a critical call: {@code wr_complete}, {@code next_poll}. */
    static final MethodHandle int_critical$mh = fnCritical(FunctionDescriptor.of(JAVA_INT, JAVA_LONG));

    static final MethodHandle wr_atomic_write$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG,
            JAVA_LONG));
    static final MethodHandle wr_flush$mh = fnCritical(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
            JAVA_BYTE, JAVA_BYTE));

    /**
     * {@code ops.post_send}, {@code post_recv} and {@code post_srq_recv}: three pointers to an
     * errno, each passed as the address of memory the caller keeps alive across the call.
     */
    public static int call_ppp(MemorySegment fn, long a, long b, long c) {
        try {
            return (int) post_send$mh.invokeExact(fn, a, b, c);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@link #call_ppp} as a critical call: {@code post_send} and {@code post_recv} of a user-space data path. */
    public static int call_ppp_critical(MemorySegment fn, long a, long b, long c) {
        try {
            return (int) post_send_critical$mh.invokeExact(fn, a, b, c);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    public static int poll_cq(MemorySegment fn, MemorySegment cq, int n, MemorySegment wc) {
        try {
            return (int) poll_cq$mh.invokeExact(fn, cq, n, wc);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_start_poll}: (cq, attr) to 0, {@code ENOENT} when the CQ is empty, or another errno. */
    public static int start_poll(MemorySegment fn, MemorySegment cq, MemorySegment attr) {
        try {
            return (int) start_poll$mh.invokeExact(fn, cq.address(), attr.address());
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_end_poll}. */
    public static void end_poll(MemorySegment fn, MemorySegment cq) {
        try {
            end_poll$mh.invokeExact(fn, cq.address());
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * The {@code ibv_wc_read_*} readers that return a 32-bit value: {@code read_opcode},
     * {@code read_vendor_err}, {@code read_byte_len}, {@code read_imm_data} (network order),
     * {@code read_qp_num}, {@code read_src_qp}, {@code read_wc_flags}, {@code read_slid}.
     */
    public static int read_u32(MemorySegment fn, MemorySegment cq) {
        try {
            return (int) read_u32$mh.invokeExact(fn, cq.address());
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** The {@code ibv_wc_read_*} readers that return a {@code uint8_t}: {@code read_sl}, {@code read_dlid_path_bits}. */
    public static byte read_u8(MemorySegment fn, MemorySegment cq) {
        try {
            return (byte) read_u8$mh.invokeExact(fn, cq.address());
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
