package org.verbs4j.spi.support;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import org.verbs4j.AhAttributes;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.VerbsException;
import org.verbs4j.WcFlags;
import org.verbs4j.WorkCompletion;

/**
 * The address vector that answers the sender of a UD completion, as {@code ibv_init_ah_from_wc(3)} builds it, for a
 * provider that has no libibverbs to call. The rules, from libibverbs' {@code verbs.c}:
 * <ul>
 *   <li>Always: dlid is the completion's slid, sl its sl, src_path_bits its dlid_path_bits, flow_label the low 20
 *       bits of the GRH's first word; static_rate 0.</li>
 *   <li>Without {@code IBV_WC_GRH} the vector is not global; on RoCE {@code ibv_create_ah} then refuses it.</li>
 *   <li>With it, the GRH area is read as an IPv6 header (version 6) or, on RoCE v2 over IPv4, as 20 unused bytes and
 *       the IPv4 header (rxe writes it so). Version 6 with an IPv4 header of length 5 whose checksum holds is taken
 *       as IPv4; neither form is {@code EPROTONOSUPPORT}.</li>
 *   <li>IPv4: the destination GID is the IPv4-mapped source address, hop limit the TTL, traffic class the TOS;
 *       IPv6: the source GID, hop limit and traffic class of the header, and the next header must be UDP (RoCE v2)
 *       or 0x1b (RoCE v1, InfiniBand), else {@code EPROTONOSUPPORT}.</li>
 *   <li>The source GID index is the index of the packet's destination address in the port's GID table; a multicast
 *       destination is {@code EINVAL} (it is in no table), as is an address the table lacks. libibverbs also matches
 *       the GID's type (RoCE v1 or v2); this finds the first entry with the GID, which is the same entry where each
 *       GID appears once, as on the emulated device.</li>
 * </ul>
 *
 * @see "ibv_create_ah_from_wc(3), ibv_init_ah_from_wc(3)"
 */
public final class AhFromWc {
    /** The bytes of the GRH area that starts a UD receive buffer. */
    public static final int GRH_BYTES = 40;
    private static final String VERB = "ibv_init_ah_from_wc";
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Where the IPv4 header sits in the GRH area on RoCE v2 over IPv4. */
    private static final int IPV4 = 20;
    private static final int NEXT_HDR_UDP = 17;
    private static final int NEXT_HDR_IB = 0x1b;

    private AhFromWc() {
    }

    /**
     * Checks the arguments every provider checks before it reads any of them.
     *
     * @param wc the completion
     * @param grh the GRH area
     * @throws NullPointerException if either is null
     * @throws IllegalArgumentException if {@code grh} is shorter than {@link #GRH_BYTES}
     */
    public static void check(WorkCompletion wc, MemorySegment grh) {
        Objects.requireNonNull(wc, "wc");
        Objects.requireNonNull(grh, "grh");
        if (grh.byteSize() < GRH_BYTES) {
            throw new IllegalArgumentException("the GRH area is " + GRH_BYTES + " bytes, not " + grh.byteSize()
                    + " (ibv_init_ah_from_wc(3))");
        }
    }

    /**
     * Checks the arguments as {@link #check} does, then copies the GRH area, for a provider that hands it to a
     * native library (whose module may use no memory layout of its own).
     *
     * @param wc the completion
     * @param grh the GRH area
     * @return its first {@link #GRH_BYTES} bytes
     * @throws NullPointerException if either is null
     * @throws IllegalArgumentException if {@code grh} is shorter than {@link #GRH_BYTES}
     */
    public static byte[] grhBytes(WorkCompletion wc, MemorySegment grh) {
        check(wc, grh);
        return grh.asSlice(0, GRH_BYTES).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Builds the address vector.
     *
     * @param context the open context whose GID table is searched
     * @param portNum the port that received the completion, 1-based, checked by the caller
     * @param wc the receive completion
     * @param grh the first {@link #GRH_BYTES} bytes of its receive buffer
     * @return the address vector of the sender
     * @throws NullPointerException if {@code wc} or {@code grh} is null
     * @throws IllegalArgumentException if {@code grh} is shorter than {@link #GRH_BYTES}
     * @throws VerbsException {@code EPROTONOSUPPORT} if the GRH area holds neither header form, or an IPv6 header
     *     with a next header other than UDP or 0x1b; {@code EINVAL} if its destination is multicast or not in the
     *     port's GID table
     */
    public static AhAttributes attributes(Context context, int portNum, WorkCompletion wc, MemorySegment grh) {
        check(wc, grh);
        int first = grh.get(BE_INT, 0);
        if ((wc.wcFlags() & WcFlags.GRH) == 0) {
            return new AhAttributes(null, wc.slid(), wc.sl(), wc.dlidPathBits(), 0, portNum);
        }
        int flowLabel = first & 0xfffff;
        GlobalRoute route;
        if (isIpv4(grh, first)) {
            int daddr = grh.get(BE_INT, IPV4 + 16);
            if ((daddr & 0xf000_0000) == 0xe000_0000) {
                throw new VerbsException(VERB, Errno.EINVAL, "the datagram went to a multicast group");
            }
            int index = gidIndex(context, portNum, Gid.ofIpv4(ipv4(daddr)));
            route = new GlobalRoute(Gid.ofIpv4(ipv4(grh.get(BE_INT, IPV4 + 12))), flowLabel, index,
                    u8(grh, IPV4 + 8), u8(grh, IPV4 + 1));
        } else {
            if (u8(grh, 24) == 0xff) {
                throw new VerbsException(VERB, Errno.EINVAL, "the datagram went to a multicast group");
            }
            int next = u8(grh, 6);
            if (next != NEXT_HDR_UDP && next != NEXT_HDR_IB) {
                throw new VerbsException(VERB, Errno.EPROTONOSUPPORT, "the GRH's next header is " + next
                        + ", neither UDP (RoCE v2) nor 0x1b (RoCE v1)");
            }
            int index = gidIndex(context, portNum, Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)));
            route = new GlobalRoute(Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)), flowLabel, index,
                    u8(grh, 7), (first >>> 20) & 0xff);
        }
        return new AhAttributes(route, wc.slid(), wc.sl(), wc.dlidPathBits(), 0, portNum);
    }

    /** IPv4 when the IPv6 version is not 6 but the IPv4 one is 4, or when both fit and the IPv4 checksum holds. */
    private static boolean isIpv4(MemorySegment grh, int first) {
        int v4 = u8(grh, IPV4);
        if ((first >>> 28) != 6) {
            if ((v4 >>> 4) == 4) {
                return true;
            }
            throw new VerbsException(VERB, Errno.EPROTONOSUPPORT, "the GRH area holds neither an IPv6 nor an IPv4 header");
        }
        if ((v4 & 0xf) != 5) {
            return false;
        }
        int sum = 0;
        for (int off = IPV4; off < IPV4 + 20; off += 2) {
            sum += off == IPV4 + 10 ? 0 : grh.get(BE_SHORT, off) & 0xffff;
        }
        sum = (sum & 0xffff) + (sum >>> 16);
        sum = (sum & 0xffff) + (sum >>> 16);
        return ((~sum) & 0xffff) == (grh.get(BE_SHORT, IPV4 + 10) & 0xffff);
    }

    private static int gidIndex(Context context, int portNum, Gid gid) {
        int entries = context.queryPort(portNum).gidTblLen();
        for (int i = 0; i < entries; i++) {
            if (gid.equals(context.queryGid(portNum, i))) {
                return i;
            }
        }
        throw new VerbsException(VERB, Errno.EINVAL, "GID " + gid + " is not in port " + portNum + "'s GID table");
    }

    private static byte[] ipv4(int address) {
        return new byte[] {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
    }

    private static int u8(MemorySegment grh, long offset) {
        return grh.get(ValueLayout.JAVA_BYTE, offset) & 0xff;
    }
}
