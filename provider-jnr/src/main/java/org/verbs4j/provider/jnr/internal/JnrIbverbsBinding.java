package org.verbs4j.provider.jnr.internal;

import org.verbs4j.provider.nativecommon.internal.IbverbsBinding;
import org.verbs4j.provider.nativecommon.internal.LibIbverbs;
import org.verbs4j.provider.nativecommon.internal.LibIbverbsOps;
import org.verbs4j.provider.nativecommon.internal.NativeErrors;

/**
 * libibverbs through JNR-FFI as the shared native object model's {@link IbverbsBinding}. The control path comes
 * from the exported functions declared once in {@link LibIbverbs} and bound here by {@link JnrDeclaredLibrary}
 * (their {@code CoreVerbs} are written once, in provider-native-common), the control-path context ops declared once
 * in {@link LibIbverbsOps} and bound here the same way (their {@code ContextOps} methods are written once too) and
 * {@link JnrCLibrary} (libc); this class holds what is written by hand for speed: fields by address
 * ({@link NativeMemory}) and the data path ({@code post_send}, {@code post_recv}, {@code poll_cq}, the
 * {@code ibv_qp_ex} WR session and the {@code ibv_cq_ex} poll ops), each one call of {@link InlineVerbs} with no
 * allocation. JNR has no critical calls: the {@code *Critical} defaults make the ordinary ones.
 */
public final class JnrIbverbsBinding implements IbverbsBinding, JnrCLibrary {
    private final NativeLibraries libs;

    /**
     * Binds the loaded libraries.
     *
     * @param libs libibverbs and libc
     */
    public JnrIbverbsBinding(NativeLibraries libs) {
        this.libs = libs;
    }

    @Override
    public NativeLibraries libs() {
        return libs;
    }

    /** The declared functions, bound on first use. */
    private static final class Declared {
        static final LibIbverbs LIBIBVERBS = JnrDeclaredLibrary.bind(LibIbverbs.class, NativeLibraries.IBVERBS_SONAME);
        static final LibIbverbsOps OPS = JnrDeclaredLibrary.bind(LibIbverbsOps.class, NativeLibraries.IBVERBS_SONAME);
    }

    @Override
    public LibIbverbs libibverbs() {
        return Declared.LIBIBVERBS;
    }

    @Override
    public LibIbverbsOps libibverbsOps() {
        return Declared.OPS;
    }

    /**
     * A binding for field access and memory only ({@code get*}, {@code put*}, {@link #allocate}, {@link #free}),
     * which need no library: for the static attribute copies that have no context at hand.
     */
    public static final JnrIbverbsBinding FIELDS = new JnrIbverbsBinding(null);

    @Override
    public String libraryOf(long fn) {
        return Dladdr.file(fn);
    }

    // ---- fields by address (NativeMemoryAccess): no native call

    @Override
    public int getInt(long address) {
        return NativeMemory.getInt(address);
    }

    @Override
    public void putInt(long address, int value) {
        NativeMemory.putInt(address, value);
    }

    @Override
    public long getLong(long address) {
        return NativeMemory.getLong(address);
    }

    @Override
    public void putLong(long address, long value) {
        NativeMemory.putLong(address, value);
    }

    @Override
    public short getShort(long address) {
        return (short) NativeMemory.getU16(address);
    }

    @Override
    public void putShort(long address, short value) {
        NativeMemory.putShort(address, value);
    }

    @Override
    public byte getByte(long address) {
        return NativeMemory.getByte(address);
    }

    @Override
    public void putByte(long address, byte value) {
        NativeMemory.putByte(address, value);
    }

    @Override
    public int getU16(long address) {
        return NativeMemory.getU16(address);
    }

    @Override
    public int getU8(long address) {
        return NativeMemory.getU8(address);
    }

    @Override
    public void getBytes(long address, byte[] into) {
        NativeMemory.getBytes(address, into, 0, into.length);
    }

    @Override
    public void putBytes(long address, byte[] from) {
        NativeMemory.putBytes(address, from, 0, from.length);
    }

    // ---- data path: ibv_context.ops (ContextOps); the raw result, as NativeErrors#ofOp and #ofPoll read it

    @Override
    public int postSend(long fn, long qp, long wr, long badWr) {
        return InlineVerbs.callPPP(fn, qp, wr, badWr);
    }

    @Override
    public int postRecv(long fn, long queue, long wr, long badWr) {
        return InlineVerbs.callPPP(fn, queue, wr, badWr);
    }

    @Override
    public int pollCq(long fn, long cq, int entries, long wc) {
        return InlineVerbs.pollCq(fn, cq, entries, wc);
    }

    // ---- data path: the ibv_qp_ex WR session (QpExOps), through InlineVerbs

    @Override
    public void wrCall(long fn, long qpx) {
        InlineVerbs.wrP(fn, qpx);
    }

    @Override
    public int wrComplete(long fn, long qpx) {
        return InlineVerbs.callP(fn, qpx);
    }

    @Override
    public void wrBuild(long fn, long qpx) {
        InlineVerbs.wrP(fn, qpx);
    }

    @Override
    public void wrU32(long fn, long qpx, int value) {
        InlineVerbs.wrU32(fn, qpx, value);
    }

    @Override
    public void wrRdma(long fn, long qpx, int rkey, long remoteAddr) {
        InlineVerbs.wrU32U64(fn, qpx, rkey, remoteAddr);
    }

    @Override
    public void wrRdmaWriteImm(long fn, long qpx, int rkey, long remoteAddr, int immDataBe) {
        InlineVerbs.wrU32U64U32(fn, qpx, rkey, remoteAddr, immDataBe);
    }

    @Override
    public void wrAtomicCmpSwp(long fn, long qpx, int rkey, long remoteAddr, long compare, long swap) {
        InlineVerbs.wrU32U64U64U64(fn, qpx, rkey, remoteAddr, compare, swap);
    }

    @Override
    public void wrAtomicFetchAdd(long fn, long qpx, int rkey, long remoteAddr, long add) {
        InlineVerbs.wrU32U64U64(fn, qpx, rkey, remoteAddr, add);
    }

    @Override
    public void wrAtomicWrite(long fn, long qpx, int rkey, long remoteAddr, long operand) {
        InlineVerbs.wrU32U64P(fn, qpx, rkey, remoteAddr, operand);
    }

    @Override
    public void wrBindMw(long fn, long qpx, long mw, int rkey, long bindInfo) {
        InlineVerbs.wrPU32P(fn, qpx, mw, rkey, bindInfo);
    }

    @Override
    public void wrSendTso(long fn, long qpx, long hdr, int hdrSize, int mss) {
        InlineVerbs.wrPU16U16(fn, qpx, hdr, hdrSize, mss);
    }

    @Override
    public void wrFlush(long fn, long qpx, int rkey, long remoteAddr, long length, int type, int level) {
        InlineVerbs.wrU32U64U64U8U8(fn, qpx, rkey, remoteAddr, length, type, level);
    }

    @Override
    public void wrSetUdAddr(long fn, long qpx, long ah, int remoteQpn, int remoteQkey) {
        InlineVerbs.wrPU32U32(fn, qpx, ah, remoteQpn, remoteQkey);
    }

    @Override
    public void wrSetSge(long fn, long qpx, int lkey, long addr, int length) {
        InlineVerbs.wrU32U64U32(fn, qpx, lkey, addr, length);
    }

    @Override
    public void wrSetList(long fn, long qpx, long count, long list) {
        InlineVerbs.wrLP(fn, qpx, count, list);
    }

    @Override
    public void wrSetInlineData(long fn, long qpx, long addr, long length) {
        InlineVerbs.wrPL(fn, qpx, addr, length);
    }

    // ---- data path: the ibv_cq_ex poll ops (CqExOps)

    @Override
    public int startPoll(long fn, long cq, long attr) {
        return InlineVerbs.startPoll(fn, cq, attr);
    }

    @Override
    public int nextPoll(long fn, long cq) {
        return InlineVerbs.nextPoll(fn, cq);
    }

    @Override
    public void endPoll(long fn, long cq) {
        InlineVerbs.endPoll(fn, cq);
    }

    @Override
    public int readU32(long fn, long cq) {
        return InlineVerbs.readU32(fn, cq);
    }

    @Override
    public long readU64(long fn, long cq) {
        return InlineVerbs.readU64(fn, cq);
    }

    @Override
    public int readU8(long fn, long cq) {
        return InlineVerbs.readU8(fn, cq);
    }
}
