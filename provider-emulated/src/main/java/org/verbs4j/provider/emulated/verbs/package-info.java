/**
 * The emulated device's verbs objects (rxe's {@code rxe_verbs.c}): device, context, PD, MR, MW, AH, CQ,
 * completion channel, SRQ, thread domain, QP and WR session, with the argument checks and posting of the QP, and
 * the in-JVM transport. They call the engine ({@code engine}); a wire device reaches the network through a
 * {@link org.verbs4j.provider.emulated.verbs.NetworkLink} that the wire package implements, so nothing here
 * depends on the wire transport or the connection manager.
 */
package org.verbs4j.provider.emulated.verbs;
