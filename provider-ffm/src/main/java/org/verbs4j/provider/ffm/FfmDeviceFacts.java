package org.verbs4j.provider.ffm;

import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;

/** What the shared capability probe reads of an FFM context beyond the API. */
record FfmDeviceFacts(FfmContext context) implements IbverbsDeviceFacts {
    @Override
    public String providerName() {
        return "ffm";
    }

    @Override
    public int rdmaCoreVersion() {
        return context.rdmaCoreVersion;
    }

    @Override
    public long deviceCapFlagsEx() {
        return context.deviceCapFlagsEx;
    }

    @Override
    public boolean hasExtendedQp() {
        return context.verbsOp(ContextStructs.verbs_context.create_qp_ex$off).address() != 0;
    }
}
