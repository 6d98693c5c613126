package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;

/**
 * What the shared capability probe reads of a native context beyond the API, for either provider.
 *
 * @param context the open context
 * @param providerName the provider's name, {@code "ffm"} or {@code "jnr"}
 */
public record NativeDeviceFacts(NativeContextSupport context, String providerName) implements IbverbsDeviceFacts {
    @Override
    public boolean hasContextOp(String name) {
        return context.verbsContextOp(ContextStructs.verbs_context.DESC.offset(name)) != 0;
    }
}
