/**
 * The emulated provider: a pure-Java software RDMA device.
 *
 * <p>{@link org.verbs4j.provider.emulated.EmulatedProvider} is the entry point. The object model (context,
 * PD, MR, MW, AH, CQ, completion channel, SRQ, thread domain, QP and WR session) lives in this package; the
 * engine's data structures (key table, receive and send rings, QP state machine, ordered copy, timers) live
 * in {@code org.verbs4j.provider.emulated.engine}, which the module does not export.
 *
 * <p>Work requests execute on the thread that posts them: the requester's checks, the responder's checks
 * on the peer QP and its memory, the copy between the two registered segments and both completions all
 * happen inside {@code postSend} or {@code WrSession.complete()}. Only an RC message that finds no receive
 * posted waits (RNR), until a receive is posted or the emulated RNR timer fires.
 */
package org.verbs4j.provider.emulated;
