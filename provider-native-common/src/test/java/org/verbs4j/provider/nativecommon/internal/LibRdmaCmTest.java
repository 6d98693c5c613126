package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.ConnectionParameters;
import org.verbs4j.provider.nativecommon.internal.RdmaCmStructs.rdma_conn_param;

/**
 * The bytes {@link LibRdmaCm} builds and reads at the offsets of {@link PosixStructs} and {@link RdmaCmStructs}
 * (whose offsets {@code StructLayoutTest} checks against the headers): the socket addresses and
 * {@code rdma_conn_param}, byte by byte.
 */
class LibRdmaCmTest {
    @Test
    @DisplayName("IPv4 and IPv6 addresses round-trip through sockaddr_in and sockaddr_in6, port in network order")
    void sockaddrRoundTrip() throws Exception {
        InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7471);
        byte[] b = LibRdmaCm.sockaddr(v4);
        assertEquals(128, b.length);
        assertEquals(2, b[0], "AF_INET, little-endian sa_family_t");
        assertEquals(0x1d, b[2] & 0xff, "7471 = 0x1d2f, high byte first");
        assertEquals(0x2f, b[3] & 0xff);
        assertArrayEquals(new byte[] {(byte) 192, 0, 2, 1}, java.util.Arrays.copyOfRange(b, 4, 8));
        assertEquals(v4, LibRdmaCm.address(b, 0));
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 65535);
        byte[] b6 = LibRdmaCm.sockaddr(v6);
        assertEquals(10, b6[0], "AF_INET6");
        assertEquals(v6.getPort(), LibRdmaCm.address(b6, 0).getPort());
        assertEquals(v6.getAddress().getHostAddress().replace("%0", ""),
                LibRdmaCm.address(b6, 0).getAddress().getHostAddress());
        assertNull(LibRdmaCm.address(new byte[128], 0), "AF_UNSPEC: no address");
        assertNull(LibRdmaCm.address(LibRdmaCm.sockaddr(new InetSocketAddress(InetAddress.getByName("::"), 0)), 0),
                "the IPv6 wildcard with port 0: the kernel's destination of an id bound with none");
        assertNull(LibRdmaCm.address(LibRdmaCm.sockaddr(new InetSocketAddress(0)), 0), "0.0.0.0:0: no address");
        InetSocketAddress bound = new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 1);
        assertEquals(bound, LibRdmaCm.address(LibRdmaCm.sockaddr(bound), 0), "the wildcard with a port is an address");
    }

    @Test
    @DisplayName("rdma_conn_param carries the private data after itself, its length, the depths, retries and QPN")
    void connParam() {
        byte[] data = {1, 2, 3};
        ConnectionParameters p = new ConnectionParameters(data, 4, 5, 6, 7);
        long at = 0x1000;
        byte[] b = LibRdmaCm.connParam(p, 0xabcdef, true, at);
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int size = (int) rdma_conn_param.SIZEOF;
        assertEquals(size + 3, b.length);
        assertEquals(at + size, bb.getLong(0), "private_data points just after the struct");
        assertEquals(3, b[(int) rdma_conn_param.private_data_len$off]);
        assertEquals(4, b[(int) rdma_conn_param.responder_resources$off]);
        assertEquals(5, b[(int) rdma_conn_param.initiator_depth$off]);
        assertEquals(6, b[(int) rdma_conn_param.retry_count$off]);
        assertEquals(7, b[(int) rdma_conn_param.rnr_retry_count$off]);
        assertEquals(1, b[(int) rdma_conn_param.srq$off]);
        assertEquals(0xabcdef, bb.getInt((int) rdma_conn_param.qp_num$off));
        assertArrayEquals(data, java.util.Arrays.copyOfRange(b, size, size + 3));
        byte[] none = LibRdmaCm.connParam(ConnectionParameters.defaults(), 1, false, at);
        assertEquals(0, ByteBuffer.wrap(none).order(ByteOrder.LITTLE_ENDIAN).getLong(0), "no data: a NULL pointer");
    }
}
