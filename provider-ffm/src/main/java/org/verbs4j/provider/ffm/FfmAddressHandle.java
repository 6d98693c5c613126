package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.ffm.internal.Ibverbs;

/** An address handle, {@code struct ibv_ah}. */
final class FfmAddressHandle extends FfmObject implements AddressHandle {
    private final FfmProtectionDomain pd;
    final MemorySegment ah;
    private final AhAttributes attributes;

    FfmAddressHandle(FfmProtectionDomain pd, MemorySegment ah, AhAttributes attributes) {
        super("AddressHandle", pd.ctx);
        this.pd = pd;
        this.ah = ah;
        this.attributes = attributes;
        pd.retain();
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
    String destroyVerb() {
        return "ibv_destroy_ah";
    }

    @Override
    int destroyNative() {
        return Ibverbs.ibv_destroy_ah(ah);
    }

    @Override
    void afterClose() {
        pd.release();
    }
}
