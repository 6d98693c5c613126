package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;

/**
 * What the shared capability probe reads of a native context beyond the API, for either provider.
 *
 * @param context the open context
 * @param providerName the provider's name, {@code "ffm"} or {@code "jnr"}
 * @param deviceCapFlagsEx {@code device_cap_flags_ex} of {@code ibv_query_device_ex}, 0 without it
 */
public record NativeDeviceFacts(NativeContextSupport context, String providerName, long deviceCapFlagsEx) implements IbverbsDeviceFacts {
    @Override
    public boolean hasExtendedQp() {
        return context.verbsContextOp(ContextStructs.verbs_context.create_qp_ex$off) != 0;
    }

    @Override
    public int cqModerationCaps() {
        return context.verbsContextOp(ContextStructs.verbs_context.modify_cq$off) == 0 ? 0
                : NativeQueries.cqModerationCaps(context);
    }
}
