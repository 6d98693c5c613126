package org.verbs4j.provider.jnr;

import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.jnr.internal.ContextResources;

/**
 * An address handle, {@code struct ibv_ah}.
 *
 * @see "ibv_create_ah(3)"
 */
final class JnrAddressHandle extends JnrResource implements AddressHandle {
    private final JnrProtectionDomain pd;
    private final AhAttributes attributes;

    JnrAddressHandle(JnrProtectionDomain pd, long ah, AhAttributes attributes) {
        super(pd.context, ah, ContextResources.Kind.AH, "address handle");
        this.pd = pd;
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
    int destroy() {
        int rc = context.libs.ibverbs().ibv_destroy_ah(handle);
        return rc == 0 ? 0 : errnoOf(rc);
    }

    @Override
    String destroyVerb() {
        return "ibv_destroy_ah";
    }

    @Override
    void afterDestroy() {
        pd.release();
    }
}
