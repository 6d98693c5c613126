package org.verbs4j.provider.nativecommon.internal;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MrAdvice;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.Sge;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.MemoryStructs.ibv_sge;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;
import org.verbs4j.spi.support.AbstractMemoryRegion;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.CallHold;
import org.verbs4j.spi.support.RegionTable;

/**
 * A protection domain, {@code struct ibv_pd}, of either native provider, and the factory of the regions, windows,
 * address handles, QPs and SRQs in it ({@link NativeQueuePairs} creates the last two).
 *
 * @see "ibv_alloc_pd(3)"
 */
public final class NativeProtectionDomain extends NativeObject implements ProtectionDomain {
    /** The live regions, for checking inline data before {@code ibv_post_send} copies it (issue 13). */
    private final RegionTable regions = new RegionTable();

    private <C extends AbstractVerbsObject & NativeContextSupport> NativeProtectionDomain(C context, long pd) {
        super("ProtectionDomain", context, NativeKind.PD, pd);
        register();
    }

    /**
     * {@code ibv_alloc_pd(3)}.
     *
     * @param <C> the provider's context
     * @param context the open context
     * @return the new domain
     * @throws VerbsException if {@code ibv_alloc_pd} fails
     */
    public static <C extends AbstractVerbsObject & NativeContextSupport> NativeProtectionDomain alloc(C context) {
        context.checkOpen();
        try (CallHold hold = CallHold.on(context)) {
            long pd = context.binding().allocPd(context.contextHandle());
            NativeErrors.check(pd, "ibv_alloc_pd", null);
            return new NativeProtectionDomain(context, pd);
        }
    }

    /** {@return the live regions of this domain, for the inline-data check of a post} */
    public RegionTable regions() {
        return regions;
    }

    private <C extends AbstractVerbsObject & NativeContextSupport> C owner() {
        @SuppressWarnings("unchecked")
        C c = (C) nativeContext();
        return c;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkOpen();
        // JNR passes raw addresses: a segment whose arena is closed is freed memory, and nothing else stops it.
        Arguments.registrable(segment);
        AccessFlags.validate(access);
        long iova = AbstractMemoryRegion.firstAddress(segment, access);
        try (CallHold hold = CallHold.on(this)) {
            long mr = binding().regMr(handle(), segment.address(), segment.byteSize(), iova, access);
            NativeErrors.check(mr, "ibv_reg_mr", segment.byteSize() + " bytes, access " + AccessFlags.toString(access));
            NativeMemoryRegion r = new NativeMemoryRegion(owner(), this, regions, mr, segment, access);
            regions.add(segment, r);
            return r;
        }
    }

    /** Through {@code verbs_context.reg_dm_mr}, as the inline {@code ibv_reg_dm_mr} calls it; 0 is EOPNOTSUPP. */
    @Override
    public MemoryRegion registerDeviceMemory(DeviceMemory dm, long dmOffset, long length, int access) {
        checkOpen();
        Objects.requireNonNull(dm, "dm");
        NativeDeviceMemory memory = sibling(dm, NativeDeviceMemory.class, "the device memory");
        Arguments.deviceMemoryRegion(dmOffset, length, memory.length(), access);
        try (CallHold hold = CallHold.on(this).and(memory, "the device memory")) {
            long mr = binding().libibverbsOps().reg_dm_mr(nativeContext().op("reg_dm_mr"), handle(), memory.handle(),
                    dmOffset, length, access);
            NativeErrors.check(mr, "ibv_reg_dm_mr", length + " bytes at offset " + dmOffset + ", access "
                    + AccessFlags.toString(access));
            return new NativeMemoryRegion(owner(), this, memory, mr, length, access, 0);
        }
    }

    @Override
    public MemoryRegion registerDmabuf(int fd, long offset, long length, long iova, int access) {
        checkOpen();
        Arguments.dmabuf(fd, offset, length, access);
        try (CallHold hold = CallHold.on(this)) {
            long mr = binding().libibverbs().ibv_reg_dmabuf_mr(handle(), offset, length, iova, fd, access);
            NativeErrors.check(mr, "ibv_reg_dmabuf_mr", length + " bytes at offset " + offset + " of fd " + fd
                    + ", iova 0x" + Long.toHexString(iova) + ", access " + AccessFlags.toString(access));
            return new NativeMemoryRegion(owner(), this, null, mr, length, access, iova);
        }
    }

    /** Through {@code verbs_context.advise_mr}, as the inline {@code ibv_advise_mr} calls it; 0 is EOPNOTSUPP. */
    @Override
    public void adviseMr(MrAdvice advice, int flags, List<Sge> sgList) {
        checkOpen();
        Arguments.adviseMr(advice, flags, sgList);
        IbverbsBinding binding = binding();
        try (CallHold hold = CallHold.on(this); TempMemory temp = new TempMemory(binding)) {
            long sges = temp.allocate(ibv_sge.SIZEOF * sgList.size());
            for (int i = 0; i < sgList.size(); i++) {
                Sge s = sgList.get(i);
                long at = sges + ibv_sge.SIZEOF * i;
                binding.putLong(at + ibv_sge.addr$off, s.addr());
                binding.putInt(at + ibv_sge.length$off, s.length());
                binding.putInt(at + ibv_sge.lkey$off, s.lkey());
            }
            NativeErrors.check(binding.libibverbsOps().advise_mr(nativeContext().op("advise_mr"),
                    handle(), advice.value(), flags, sges, sgList.size()), "ibv_advise_mr",
                    advice + ", " + sgList.size() + " SGEs");
        }
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        checkOpen();
        Objects.requireNonNull(type, "type");
        long fn = nativeContext().op("alloc_mw");
        if (fn == 0) {
            throw new VerbsException("ibv_alloc_mw", Errno.EOPNOTSUPP, "the device has no memory windows");
        }
        try (CallHold hold = CallHold.on(this)) {
            long mw = binding().libibverbsOps().alloc_mw(fn, handle(), type.value());
            NativeErrors.check(mw, "ibv_alloc_mw", type.toString());
            return new NativeMemoryWindow(owner(), this, mw, type);
        }
    }

    @Override
    public AddressHandle createAh(AhAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        NativeContextSupport context = nativeContext();
        context.checkPort(attributes.portNum());
        if (attributes.grh() != null) {
            int gids = context.queryPort(attributes.portNum()).gidTblLen();
            if (attributes.grh().sgidIndex() >= gids) {
                throw new IllegalArgumentException("source GID index " + attributes.grh().sgidIndex()
                        + " is beyond port " + attributes.portNum() + "'s " + gids + "-entry GID table");
            }
        }
        IbverbsBinding binding = binding();
        long attr = binding.allocate(ibv_ah_attr.SIZEOF);
        try (CallHold hold = CallHold.on(this)) {
            NativeQpAttrs.writeAhAttr(binding, attr, attributes);
            long ah = binding.createAh(handle(), attr);
            NativeErrors.check(ah, "ibv_create_ah", attributes.toString());
            return new NativeAddressHandle(owner(), this, ah, attributes);
        } finally {
            binding.free(attr);
        }
    }

    @Override
    public QueuePair createQp(QpInitAttributes attributes) {
        return NativeQueuePairs.createQp(owner(), this, handle(), regions, attributes);
    }

    @Override
    public SharedReceiveQueue createSrq(SrqInitAttributes attributes) {
        return NativeQueuePairs.createSrq(owner(), this, handle(), attributes);
    }

    @Override
    protected int destroy() {
        return NativeErrors.errno(binding().deallocPd(handle()));
    }
}
