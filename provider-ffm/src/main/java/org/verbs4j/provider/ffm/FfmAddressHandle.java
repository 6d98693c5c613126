package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.ffm.internal.Ibverbs;
import org.verbs4j.spi.support.AbstractVerbsObject;

/** An address handle, {@code struct ibv_ah}. */
final class FfmAddressHandle extends AbstractVerbsObject implements AddressHandle {
    final FfmContext ctx;
    private final FfmProtectionDomain pd;
    final MemorySegment ah;
    private final AhAttributes attributes;

    FfmAddressHandle(FfmProtectionDomain pd, MemorySegment ah, AhAttributes attributes) {
        super("AddressHandle", pd.ctx);
        this.ctx = pd.ctx;
        this.pd = pd;
        this.ah = ah;
        this.attributes = attributes;
        dependOn(pd);
        register();
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public AhAttributes attributes() {
        checkOpen();
        return attributes;
    }

    @Override
    protected int destroy() {
        return Ibverbs.failure(Ibverbs.ibv_destroy_ah(ah));
    }
}
