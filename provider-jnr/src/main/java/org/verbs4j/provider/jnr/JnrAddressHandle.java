package org.verbs4j.provider.jnr;

import static org.verbs4j.provider.jnr.JnrProvider.errnoOf;

import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.jnr.internal.ContextResources;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * An address handle, {@code struct ibv_ah}.
 *
 * @see "ibv_create_ah(3)"
 */
final class JnrAddressHandle extends AbstractVerbsObject implements AddressHandle {
    final JnrContext context;
    final long handle;
    private final JnrProtectionDomain pd;
    private final AhAttributes attributes;

    JnrAddressHandle(JnrProtectionDomain pd, long ah, AhAttributes attributes) {
        super("AddressHandle", pd.context);
        this.context = pd.context;
        this.handle = ah;
        context.track(ContextResources.Kind.AH, ah, this);
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
        int rc = context.libs.ibverbs().ibv_destroy_ah(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    protected void afterDestroy() {
        context.untrack(ContextResources.Kind.AH, handle, this);
    }
}
