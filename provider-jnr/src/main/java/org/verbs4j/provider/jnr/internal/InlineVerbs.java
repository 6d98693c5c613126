package org.verbs4j.provider.jnr.internal;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;

/**
 * Calls the data path of the {@code static inline} verbs of {@code verbs.h} the way their inline bodies do (the
 * control-path ops are declared once in the shared {@code LibIbverbsOps} and bound by {@link JnrDeclaredLibrary}): through the
 * function pointers that the provider library (rxe, mlx5, ...) stores in {@code ibv_context.ops}, in
 * {@code struct verbs_context} just before {@code ibv_context}, in {@code struct ibv_qp_ex} and in
 * {@code struct ibv_cq_ex}. The call
 * goes through jffi's invoker on the raw function address, with every argument in a {@code long}.
 *
 * <p>The ops return the errno themselves (0 on success), so their call contexts do not save errno.
 *
 * <p>Every address passed here must come from libibverbs or from memory this provider owns: jffi does
 * not check addresses. The object model guarantees that by refusing closed objects before any call.
 */
public final class InlineVerbs {
    private static final Invoker INVOKER = Invoker.getInstance();
    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    private static CallContext ctx(boolean saveErrno, Type result, Type... params) {
        return new CallContext(result, params, CallingConvention.DEFAULT, saveErrno);
    }

    private static final Type P = Type.POINTER;
    private static final Type I = Type.SINT32;
    private static final Type U32 = Type.UINT32;
    private static final Type U64 = Type.UINT64;
    private static final Type U16 = Type.UINT16;
    private static final Type U8 = Type.UINT8;
    private static final Type V = Type.VOID;

    // int (*)(p, p, p): post_send, post_recv, post_srq_recv
    private static final CallContext I_PPP = ctx(false, I, P, P, P);
    // int (*)(struct ibv_cq *, int, struct ibv_wc *)
    private static final CallContext I_PIP = ctx(false, I, P, I, P);
    // int (*)(p): wr_complete, next_poll
    private static final CallContext I_P = ctx(false, I, P);
    // int (*)(p, p): start_poll
    private static final CallContext I_PP = ctx(false, I, P, P);

    // the ibv_cq_ex readers: uint32_t / enum / unsigned int (*)(struct ibv_cq_ex *), uint8_t (*)(struct ibv_cq_ex *)
    private static final CallContext U32_P = ctx(false, U32, P);
    private static final CallContext U8_P = ctx(false, U8, P);
    // uint64_t (*)(struct ibv_cq_ex *): read_completion_ts, read_completion_wallclock_ns
    private static final CallContext U64_P = ctx(false, U64, P);

    // the ibv_qp_ex builders and setters
    private static final CallContext V_P = ctx(false, V, P);
    private static final CallContext V_PU32 = ctx(false, V, P, U32);
    private static final CallContext V_PU32U64 = ctx(false, V, P, U32, U64);
    private static final CallContext V_PU32U64U32 = ctx(false, V, P, U32, U64, U32);
    private static final CallContext V_PU32U64U64 = ctx(false, V, P, U32, U64, U64);
    private static final CallContext V_PU32U64U64U64 = ctx(false, V, P, U32, U64, U64, U64);
    private static final CallContext V_PU32U64P = ctx(false, V, P, U32, U64, P);
    private static final CallContext V_PPU32P = ctx(false, V, P, P, U32, P);
    private static final CallContext V_PPU16U16 = ctx(false, V, P, P, U16, U16);
    private static final CallContext V_PPU32U32 = ctx(false, V, P, P, U32, U32);
    private static final CallContext V_PPL = ctx(false, V, P, P, U64);
    private static final CallContext V_PLP = ctx(false, V, P, U64, P);
    private static final CallContext V_PU32U64U64U8U8 = ctx(false, V, P, U32, U64, U64, U8, U8);

    private InlineVerbs() {}

    // ---- ibv_context.ops ----

    /** {@code int (*)(p, p, p)}: post_send, post_recv, post_srq_recv. Returns the errno. */
    public static int callPPP(long fn, long a, long b, long c) {
        return (int) INVOKER.invokeN3(I_PPP, fn, a, b, c);
    }

    /** {@code ops.poll_cq}: the number of completions, or a negative value on error. */
    public static int pollCq(long fn, long cq, int numEntries, long wc) {
        return (int) INVOKER.invokeN3(I_PIP, fn, cq, numEntries, wc);
    }

    /** {@code int (*)(p)}: wr_complete. Returns the errno. */
    public static int callP(long fn, long a) {
        return (int) INVOKER.invokeN1(I_P, fn, a);
    }

    // ---- struct ibv_cq_ex ----

    /** {@code ibv_start_poll}: 0 with the first completion in the CQ, ENOENT when empty, or another errno. */
    public static int startPoll(long fn, long cqx, long attr) {
        return (int) INVOKER.invokeN2(I_PP, fn, cqx, attr);
    }

    /** {@code ibv_next_poll}: 0 with the next completion current, ENOENT when there is none, or another errno. */
    public static int nextPoll(long fn, long cqx) {
        return (int) INVOKER.invokeN1(I_P, fn, cqx);
    }

    /** {@code ibv_end_poll}. */
    public static void endPoll(long fn, long cqx) {
        INVOKER.invokeN1(V_P, fn, cqx);
    }

    /** An {@code ibv_wc_read_*} that returns a 32-bit value (opcode, vendor_err, byte_len, imm, QPN, flags, slid). */
    public static int readU32(long fn, long cqx) {
        return (int) INVOKER.invokeN1(U32_P, fn, cqx);
    }

    /** An {@code ibv_wc_read_*} that returns a {@code uint64_t} (completion_ts, completion_wallclock_ns). */
    public static long readU64(long fn, long cqx) {
        return INVOKER.invokeN1(U64_P, fn, cqx);
    }

    /** An {@code ibv_wc_read_*} that returns a {@code uint8_t} (sl, dlid_path_bits). */
    public static int readU8(long fn, long cqx) {
        return (int) (INVOKER.invokeN1(U8_P, fn, cqx) & 0xff);
    }

    // ---- struct ibv_qp_ex ----

    public static void wrP(long fn, long qpx) {
        INVOKER.invokeN1(V_P, fn, qpx);
    }

    public static void wrU32(long fn, long qpx, int a) {
        INVOKER.invokeN2(V_PU32, fn, qpx, a & 0xffffffffL);
    }

    public static void wrU32U64(long fn, long qpx, int a, long b) {
        INVOKER.invokeN3(V_PU32U64, fn, qpx, a & 0xffffffffL, b);
    }

    public static void wrU32U64U32(long fn, long qpx, int a, long b, int c) {
        INVOKER.invokeN4(V_PU32U64U32, fn, qpx, a & 0xffffffffL, b, c & 0xffffffffL);
    }

    public static void wrU32U64U64(long fn, long qpx, int a, long b, long c) {
        INVOKER.invokeN4(V_PU32U64U64, fn, qpx, a & 0xffffffffL, b, c);
    }

    public static void wrU32U64U64U64(long fn, long qpx, int a, long b, long c, long d) {
        INVOKER.invokeN5(V_PU32U64U64U64, fn, qpx, a & 0xffffffffL, b, c, d);
    }

    public static void wrU32U64P(long fn, long qpx, int a, long b, long p) {
        INVOKER.invokeN4(V_PU32U64P, fn, qpx, a & 0xffffffffL, b, p);
    }

    public static void wrPU32P(long fn, long qpx, long p, int a, long q) {
        INVOKER.invokeN4(V_PPU32P, fn, qpx, p, a & 0xffffffffL, q);
    }

    public static void wrPU16U16(long fn, long qpx, long p, int a, int b) {
        INVOKER.invokeN4(V_PPU16U16, fn, qpx, p, a & 0xffffL, b & 0xffffL);
    }

    public static void wrPU32U32(long fn, long qpx, long p, int a, int b) {
        INVOKER.invokeN4(V_PPU32U32, fn, qpx, p, a & 0xffffffffL, b & 0xffffffffL);
    }

    public static void wrPL(long fn, long qpx, long p, long len) {
        INVOKER.invokeN3(V_PPL, fn, qpx, p, len);
    }

    public static void wrLP(long fn, long qpx, long n, long p) {
        INVOKER.invokeN3(V_PLP, fn, qpx, n, p);
    }

    /** {@code wr_flush}: (qpx, rkey, remote_addr, len, type, level). */
    public static void wrU32U64U64U8U8(long fn, long qpx, int a, long b, long c, int d, int e) {
        INVOKER.invokeN6(V_PU32U64U64U8U8, fn, qpx, a & 0xffffffffL, b, c, d & 0xffL, e & 0xffL);
    }
}
