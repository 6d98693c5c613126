package org.verbs4j.provider.emulated.verbs;

import java.lang.foreign.MemorySegment;

import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;

/** An address handle: the destination GID of UD messages. */
public final class EmulatedAddressHandle extends AbstractVerbsObject implements AddressHandle {
    final EmulatedContext context;
    final EmulatedProtectionDomain pd;
    public final AhAttributes attributes;
    /** The destination GID's 16 bytes, for the GRH of each message. */
    final MemorySegment dgidBytes;

    EmulatedAddressHandle(EmulatedProtectionDomain pd, AhAttributes attributes) {
        super("AddressHandle", pd.context, pd.context.lock);
        this.context = pd.context;
        this.pd = pd;
        this.attributes = attributes;
        this.dgidBytes = MemorySegment.ofArray(attributes.grh().dgid().toBytes());
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
        return 0;
    }
}
