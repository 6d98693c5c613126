/**
 * The RoCE v2 wire transport of the wire devices ({@code roceN}): the UDP endpoint of a device
 * ({@code RoceEndpoint}, the part of rxe's {@code rxe_net.c}), and for each QP the packet halves of the engine's
 * requester and responder ({@code WireTransport}: the packets, PSN window and retransmission of a request;
 * {@code WireResponder}: the checks and answers of a request's packets), which hand whole messages to the engine.
 * It implements the verbs objects' {@link org.verbs4j.provider.emulated.verbs.NetworkLink} and reports QP1's
 * datagrams up through the {@link org.verbs4j.provider.emulated.wire.GsiAgent} it owns.
 */
package org.verbs4j.provider.emulated.wire;
