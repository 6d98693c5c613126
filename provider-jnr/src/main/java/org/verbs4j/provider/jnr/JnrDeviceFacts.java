package org.verbs4j.provider.jnr;

import org.verbs4j.provider.jnr.internal.InlineVerbs;
import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;

/** What the shared capability probe reads of a JNR context beyond the API. */
record JnrDeviceFacts(JnrContext context) implements IbverbsDeviceFacts {
    @Override
    public String providerName() {
        return "jnr";
    }

    @Override
    public int rdmaCoreVersion() {
        return context.libs.rdmaCoreMajor();
    }

    @Override
    public long deviceCapFlagsEx() {
        return context.deviceCapFlagsEx;
    }

    @Override
    public boolean hasExtendedQp() {
        return InlineVerbs.verbsContextOp(context.handle(), verbs_context.create_qp_ex$off) != 0;
    }
}
