/**
 * The emulated provider: a pure-Java software RDMA device.
 *
 * <p>{@link org.verbs4j.provider.emulated.EmulatedProvider} is the entry point and the only class of this package,
 * the only one the module exports. The provider's packages each hold one concern and depend on each other in one
 * direction only, from the top down (ArchUnit rules in {@code architecture-tests} pin it):
 * <ol>
 *   <li>{@code cm}: the connection manager (rdma_cm's ids and events, the in-JVM exchange, and the IB CM agent on
 *       a wire device's QP1), and the JVM's list of devices, which it assembles;</li>
 *   <li>{@code wire}: the RoCE v2 wire transport (a device's UDP endpoint, the packet halves of the requester and
 *       the responder), over {@code wire.codec}, the packet formats;</li>
 *   <li>{@code verbs}: the verbs objects (device, context, PD, MR, MW, AH, CQ, completion channel, SRQ, thread
 *       domain, QP and WR session) and the in-JVM transport;</li>
 *   <li>{@code engine}: the engine, as rxe names its parts (requester, responder, completer) with their queues,
 *       key table and QP state machine. The verbs objects call it; it reports back only through the interfaces
 *       it owns ({@code EngineQp}, {@code CompletionSink}, {@code Transport}).</li>
 * </ol>
 *
 * <p>Work requests execute on the thread that posts them: the requester's checks, the responder's checks
 * on the peer QP and its memory, the copy between the two registered segments and both completions all
 * happen inside {@code postSend} or {@code WrSession.complete()}. Only an RC message that finds no receive
 * posted waits (RNR), until a receive is posted or the emulated RNR timer fires.
 */
package org.verbs4j.provider.emulated;
