package org.verbs4j.provider.ffm;

import java.lang.foreign.Arena;
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
import org.verbs4j.provider.ffm.internal.FfmIbverbsBinding;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.provider.ffm.internal.InlineOps;
import org.verbs4j.provider.ffm.internal.Structs.ibv_ah_attr;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.RegionTable;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryRegion;
import org.verbs4j.provider.nativecommon.internal.NativeMemoryWindow;
import org.verbs4j.provider.nativecommon.internal.NativeAddressHandle;
import org.verbs4j.provider.nativecommon.internal.NativeQpAttrs;
import org.verbs4j.provider.nativecommon.internal.NativeQueuePairs;

/** A protection domain, {@code struct ibv_pd}, and the factory of everything that lives in it. */
final class FfmProtectionDomain extends AbstractVerbsObject implements ProtectionDomain {
    final FfmContext ctx;

    final MemorySegment pd;
    /** The live regions, for checking inline data before {@code ibv_post_send} copies it. */
    final RegionTable regions = new RegionTable();

    FfmProtectionDomain(FfmContext ctx, MemorySegment pd) {
        super("ProtectionDomain", ctx);
        this.ctx = ctx;
        this.pd = pd;
        register();
    }

    @Override
    public Context context() {
        checkOpen();
        return ctx;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkOpen();
        Arguments.registrable(segment);
        AccessFlags.validate(access);
        long iova = (access & AccessFlags.ZERO_BASED) != 0 ? 0 : segment.address();
        MemorySegment mr = Ibverbs.ibv_reg_mr_iova2(pd, segment, segment.byteSize(), iova, access);
        if (mr.address() == 0) {
            throw new VerbsException("ibv_reg_mr", Ibverbs.errnoOf(-1),
                    segment.byteSize() + " bytes, access " + AccessFlags.toString(access));
        }
        NativeMemoryRegion r = new NativeMemoryRegion(ctx, this, regions, mr.address(), segment, access);
        regions.add(segment);
        return r;
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        checkOpen();
        Objects.requireNonNull(type, "type");
        if (ctx.allocMw.address() == 0) {
            throw new VerbsException("ibv_alloc_mw", Errno.EOPNOTSUPP, "the device has no memory windows");
        }
        MemorySegment mw = InlineOps.alloc_mw(ctx.allocMw, pd, type.value());
        if (mw.address() == 0) {
            throw new VerbsException("ibv_alloc_mw", Ibverbs.errnoOf(-1), type.toString());
        }
        return new NativeMemoryWindow(ctx, this, mw.address(), type);
    }

    @Override
    public AddressHandle createAh(AhAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        ctx.checkPort(attributes.portNum());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(ibv_ah_attr.LAYOUT);
            NativeQpAttrs.writeAhAttr(FfmIbverbsBinding.INSTANCE, attr.address(), attributes);
            MemorySegment ah = Ibverbs.ibv_create_ah(pd, attr);
            if (ah.address() == 0) {
                throw new VerbsException("ibv_create_ah", Ibverbs.errnoOf(-1), attributes.toString());
            }
            return new NativeAddressHandle(ctx, this, ah.address(), attributes);
        }
    }

    @Override
    public QueuePair createQp(QpInitAttributes a) {
        return NativeQueuePairs.createQp(ctx, this, pd.address(), regions, a);
    }

    @Override
    public SharedReceiveQueue createSrq(SrqInitAttributes attributes) {
        return NativeQueuePairs.createSrq(ctx, this, pd.address(), attributes);
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(Ibverbs.ibv_dealloc_pd(pd));
    }
}
