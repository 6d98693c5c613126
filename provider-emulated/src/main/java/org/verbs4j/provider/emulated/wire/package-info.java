/**
 * The RoCE v2 wire transport of the wire devices ({@code roceN}): the UDP endpoint of a device
 * ({@code RoceEndpoint}, the part of rxe's {@code rxe_net.c}), and for each QP the packet halves of the engine's
 * requester and responder ({@code WireTransport}: the packets, PSN window and retransmission of a request;
 * {@code WireResponder}: the checks and answers of a request's packets), which hand whole messages to the engine.
 * It implements the verbs objects' {@link org.verbs4j.provider.emulated.verbs.NetworkLink} and reports QP1's
 * datagrams up through the {@link org.verbs4j.provider.emulated.wire.GsiAgent} it owns.
 *
 * <p>UD multicast is IPv4 multicast: a UD send to an IPv4-mapped multicast GID ({@code ::ffff:224.0.0.0/4}) and QPN
 * {@code 0xFFFFFF} is one packet to the group's address and the device's port, and the endpoint joins each group a
 * QP of its device is attached to with a socket of its own, whose datagrams go to the device's attached QPs as
 * unicast UD datagrams go to their QP ({@code RoceEndpoint}; the limits and the group lifetimes are
 * {@code verbs.MulticastGroups}').
 */
package org.verbs4j.provider.emulated.wire;
