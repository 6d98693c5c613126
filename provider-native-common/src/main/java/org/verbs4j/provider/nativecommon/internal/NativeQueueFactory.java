package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;

/**
 * Where a {@link NativeProtectionDomain} creates its QPs and SRQs: still in each provider while their object
 * model is moved here on its own (issue 12). The domain has checked that it is open and that the attributes are
 * not null.
 */
public interface NativeQueueFactory {
    /**
     * {@code ibv_create_qp_ex(3)} in {@code pd}.
     *
     * @param pd the protection domain
     * @param attributes the attributes
     * @return the new QP
     */
    QueuePair createQp(NativeProtectionDomain pd, QpInitAttributes attributes);

    /**
     * {@code ibv_create_srq(3)} in {@code pd}.
     *
     * @param pd the protection domain
     * @param attributes the attributes
     * @return the new SRQ
     */
    SharedReceiveQueue createSrq(NativeProtectionDomain pd, SrqInitAttributes attributes);
}
