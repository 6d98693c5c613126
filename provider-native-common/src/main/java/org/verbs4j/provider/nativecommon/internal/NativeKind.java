package org.verbs4j.provider.nativecommon.internal;

/**
 * The kinds of native object a context owns, in the order a context that was never closed destroys what is
 * left of them. Windows come first: on rxe, destroying the QP that bound a type 2 window while the window is
 * still allocated takes about 50 s, and deallocating the window first about 13 ms (issue 13). QPs come before
 * the CQs, SRQs and PDs they use. {@link #MEMORY} is native memory a binding allocated for the context, freed
 * last.
 */
public enum NativeKind { MW, QP, SRQ, AH, MR, CQ, COMP_CHANNEL, PARENT_DOMAIN, TD, PD, MEMORY }
