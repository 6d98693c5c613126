/**
 * The RoCE v2 packet formats: the IPv4 and UDP headers, the base and extended transport headers, the opcodes
 * (rxe's {@code rxe_opcode.c}), the ICRC (rxe's {@code rxe_icrc.c}), the CM MADs and the reasons a packet is
 * dropped. Pure functions over buffers; it depends on nothing else of the provider.
 */
package org.verbs4j.provider.emulated.wire.codec;
