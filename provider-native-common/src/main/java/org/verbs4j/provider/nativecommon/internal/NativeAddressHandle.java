package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * An address handle, {@code struct ibv_ah}, of either native provider.
 *
 * @see "ibv_create_ah(3)"
 */
public final class NativeAddressHandle extends NativeObject implements AddressHandle {
    private final ProtectionDomain pd;
    private final AhAttributes attributes;

    /**
     * Wraps an address handle {@code ibv_create_ah} returned.
     *
     * @param <C> the provider's context
     * @param <P> the provider's protection domain
     * @param context the context it belongs to
     * @param pd the protection domain it was created in
     * @param ah the {@code struct ibv_ah *}, not 0
     * @param attributes the attributes it was created with
     */
    public <C extends AbstractVerbsObject & NativeContextSupport, P extends AbstractVerbsObject & ProtectionDomain>
            NativeAddressHandle(C context, P pd, long ah, AhAttributes attributes) {
        super("AddressHandle", context, NativeKind.AH, ah);
        this.pd = pd;
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
        return NativeErrors.errno(binding().destroyAh(handle()));
    }
}
