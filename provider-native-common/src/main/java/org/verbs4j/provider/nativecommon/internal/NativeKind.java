package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.spi.support.VerbsObjectKind;

/**
 * The kinds of native object a context owns, in the order a context that was never closed destroys what is
 * left of them: {@link VerbsObjectKind}'s order, which is written there once (windows first, issue 13; every kind
 * before the kinds it uses), and which the constants here follow (NativeKindTest checks it). {@link #MEMORY} is
 * native memory a binding allocated for the context, freed last.
 */
public enum NativeKind {
    MW(VerbsObjectKind.MEMORY_WINDOW),
    QP(VerbsObjectKind.QUEUE_PAIR),
    SRQ(VerbsObjectKind.SHARED_RECEIVE_QUEUE),
    XRCD(VerbsObjectKind.XRC_DOMAIN),
    AH(VerbsObjectKind.ADDRESS_HANDLE),
    MR(VerbsObjectKind.MEMORY_REGION),
    DM(VerbsObjectKind.DEVICE_MEMORY),
    CQ(VerbsObjectKind.COMPLETION_QUEUE),
    COMP_CHANNEL(VerbsObjectKind.COMPLETION_CHANNEL),
    PARENT_DOMAIN(VerbsObjectKind.PARENT_DOMAIN),
    TD(VerbsObjectKind.THREAD_DOMAIN),
    PD(VerbsObjectKind.PROTECTION_DOMAIN),
    MEMORY(null);

    private final VerbsObjectKind object;

    NativeKind(VerbsObjectKind object) {
        this.object = object;
    }

    /** {@return the verbs object kind, with its destroy verb; null for {@link #MEMORY}} */
    public VerbsObjectKind object() {
        return object;
    }
}
