package org.verbs4j.provider.jnr;

import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.NativeMemory;
import org.verbs4j.provider.nativecommon.internal.NativeProtectionDomain;
import org.verbs4j.provider.nativecommon.internal.NativeQueueFactory;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_srq_init_attr;

/**
 * Creates the QPs and SRQs of a {@link NativeProtectionDomain} of this provider (issue 12: their object model is
 * still the provider's).
 */
final class JnrQueueFactory implements NativeQueueFactory {
    private final JnrContext context;

    JnrQueueFactory(JnrContext context) {
        this.context = context;
    }

    @Override
    public QueuePair createQp(NativeProtectionDomain pd, QpInitAttributes attributes) {
        return JnrQueuePair.create(pd, attributes);
    }

    @Override
    public SharedReceiveQueue createSrq(NativeProtectionDomain pd, SrqInitAttributes attributes) {
        long a = NativeMemory.allocate(ibv_srq_init_attr.SIZEOF);
        try {
            NativeMemory.putInt(a + ibv_srq_init_attr.attr$max_wr$off, attributes.maxWr());
            NativeMemory.putInt(a + ibv_srq_init_attr.attr$max_sge$off, attributes.maxSge());
            NativeMemory.putInt(a + ibv_srq_init_attr.attr$srq_limit$off, attributes.srqLimit());
            long srq = context.libs.ibverbs().ibv_create_srq(pd.handle(), a);
            if (srq == 0) {
                throw new VerbsException("ibv_create_srq", context.libs.lastErrno(), attributes.toString());
            }
            return new JnrSharedReceiveQueue(pd, srq,
                    NativeMemory.getInt(a + ibv_srq_init_attr.attr$max_sge$off));
        } finally {
            NativeMemory.free(a);
        }
    }
}
