package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.RegionTable;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.NativeKind;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeAddressHandle;
import org.verbs4j.provider.nativecommon.internal.NativeQpAttrs;
import org.verbs4j.provider.nativecommon.internal.NativeQueuePairs;

/**
 * A protection domain, {@code struct ibv_pd}.
 *
 * @see "ibv_alloc_pd(3)"
 */
final class JnrProtectionDomain extends AbstractVerbsObject implements ProtectionDomain {
    final JnrContext context;
    final long handle;
    /** The live regions, for checking inline data before {@code ibv_post_send} copies it. */
    final RegionTable regions = new RegionTable();

    JnrProtectionDomain(JnrContext context, long pd) {
        super("ProtectionDomain", context);
        this.context = context;
        this.handle = pd;
        context.track(NativeKind.PD, pd, this);
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkOpen();
        long pd = handle;
        // A segment whose arena is closed is freed memory: JNR passes raw addresses, so nothing else stops it.
        Arguments.registrable(segment);
        AccessFlags.validate(access);
        long mr = context.libs.ibverbs().ibv_reg_mr_iova2(pd, segment.address(), segment.byteSize(),
                segment.address(), access);
        if (mr == 0) {
            throw new VerbsException("ibv_reg_mr", context.libs.lastErrno(), segment.byteSize() + " bytes, access "
                    + AccessFlags.toString(access));
        }
        NativeMemoryRegion r = new NativeMemoryRegion(context, this, regions, mr, segment, access);
        regions.add(segment);
        return r;
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        checkOpen();
        Objects.requireNonNull(type, "type");
        checkOpen();
        long pd = handle;
        long fn = context.op(ibv_context.ops$alloc_mw$off);
        if (fn == 0) {
            throw new VerbsException("ibv_alloc_mw", Errno.EOPNOTSUPP, null);
        }
        long mw = InlineVerbs.allocMw(fn, pd, type.value());
        if (mw == 0) {
            int e = InlineVerbs.lastErrno();
            throw new VerbsException("ibv_alloc_mw", e != 0 ? e : Errno.EOPNOTSUPP, type.toString());
        }
        return new NativeMemoryWindow(context, this, mw, type);
    }

    @Override
    public AddressHandle createAh(AhAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        checkOpen();
        long pd = handle;
        int ports = context.cachedDeviceAttributes().physPortCnt();
        if (attributes.portNum() > ports) {
            throw new IllegalArgumentException("port " + attributes.portNum() + " is not a port of the device (1.."
                    + ports + ")");
        }
        if (attributes.grh() != null) {
            int gids = context.queryPort(attributes.portNum()).gidTblLen();
            if (attributes.grh().sgidIndex() >= gids) {
                throw new IllegalArgumentException("source GID index " + attributes.grh().sgidIndex()
                        + " is beyond port " + attributes.portNum() + "'s " + gids + "-entry GID table");
            }
        }
        long a = NativeMemory.allocate(ibv_ah_attr.SIZEOF);
        try {
            NativeQpAttrs.writeAhAttr(context.binding(), a, attributes);
            long ah = context.libs.ibverbs().ibv_create_ah(pd, a);
            if (ah == 0) {
                throw new VerbsException("ibv_create_ah", context.libs.lastErrno(), attributes.toString());
            }
            return new NativeAddressHandle(context, this, ah, attributes);
        } finally {
            NativeMemory.free(a);
        }
    }

    @Override
    public QueuePair createQp(QpInitAttributes attributes) {
        return NativeQueuePairs.createQp(context, this, handle, regions, attributes);
    }

    @Override
    public SharedReceiveQueue createSrq(SrqInitAttributes attributes) {
        return NativeQueuePairs.createSrq(context, this, handle, attributes);
    }

    @Override
    protected int destroy() {
        int rc = context.libs.ibverbs().ibv_dealloc_pd(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(NativeKind.PD, handle, this);
    }
}
