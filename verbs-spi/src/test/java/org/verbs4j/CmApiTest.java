package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.spi.support.CmArguments;

@DisplayName("Connection-manager API values follow rdma_cma.h and reject bad input")
class CmApiTest {

    @Test
    @DisplayName("event types keep enum rdma_cm_event_type's values")
    void eventTypeValues() {
        assertEquals(0, CmEventType.ADDR_RESOLVED.value());
        assertEquals(4, CmEventType.CONNECT_REQUEST.value());
        assertEquals(8, CmEventType.REJECTED.value());
        assertEquals(9, CmEventType.ESTABLISHED.value());
        assertEquals(10, CmEventType.DISCONNECTED.value());
        assertEquals(15, CmEventType.TIMEWAIT_EXIT.value());
        assertEquals(CmEventType.UNREACHABLE, CmEventType.of(7));
        assertThrows(IllegalArgumentException.class, () -> CmEventType.of(16));
        assertThrows(IllegalArgumentException.class, () -> CmEventType.of(-1));
    }

    @Test
    @DisplayName("port spaces keep enum rdma_port_space's values and QP types")
    void portSpaceValues() {
        assertEquals(0x0106, CmPortSpace.TCP.value());
        assertEquals(0x0111, CmPortSpace.UDP.value());
        assertEquals(0x0002, CmPortSpace.IPOIB.value());
        assertEquals(0x013F, CmPortSpace.IB.value());
        assertEquals(QpType.RC, CmPortSpace.TCP.qpType());
        assertEquals(QpType.UD, CmPortSpace.UDP.qpType());
    }

    @Test
    @DisplayName("connection parameters copy their private data and check each field's range")
    void connectionParameters() {
        byte[] data = {1, 2, 3};
        ConnectionParameters p = ConnectionParameters.of(data);
        data[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.privateData(), "copied at construction");
        p.privateData()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, p.privateData(), "copied by the getter");
        assertEquals(p, ConnectionParameters.of(new byte[] {1, 2, 3}));
        assertEquals(0, ConnectionParameters.defaults().privateDataLength());
        assertThrows(NullPointerException.class, () -> ConnectionParameters.of(null));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionParameters(new byte[0], 256, 1, 7, 7));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionParameters(new byte[0], 1, -1, 7, 7));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionParameters(new byte[0], 1, 1, 8, 7));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionParameters(new byte[0], 1, 1, 7, 8));
    }

    @Test
    @DisplayName("the shared checks refuse private data over the transport's limit, negative timeouts and unresolved addresses")
    void sharedChecks() {
        CmArguments.connect(ConnectionParameters.of(new byte[56]), 56);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CmArguments.connect(ConnectionParameters.of(new byte[57]), 56));
        assertTrue(e.getMessage().contains("56"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CmArguments.accept(ConnectionParameters.of(new byte[197]), 196));
        assertThrows(IllegalArgumentException.class, () -> CmArguments.reject(new byte[149], 148));
        assertThrows(NullPointerException.class, () -> CmArguments.reject(null, 148));
        assertThrows(IllegalArgumentException.class, () -> CmArguments.timeoutMs(-1));
        CmArguments.timeoutMs(0);
        assertThrows(IllegalArgumentException.class, () -> CmArguments.waitTimeout(-1, TimeUnit.SECONDS));
        assertThrows(NullPointerException.class, () -> CmArguments.waitTimeout(1, null));
        assertThrows(IllegalArgumentException.class, () -> CmArguments.backlog(-1));
        assertThrows(IllegalArgumentException.class,
                () -> CmArguments.address(InetSocketAddress.createUnresolved("nowhere.invalid", 1), "dst"));
        assertThrows(NullPointerException.class, () -> CmArguments.address(null, "dst"));
    }

    @Test
    @DisplayName("a provider without a connection manager says so and throws UnsupportedOperationException naming itself")
    void providerWithoutConnectionManager() {
        TestOnlyProvider p = new TestOnlyProvider();
        assertFalse(p.hasConnectionManager());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::connectionManager);
        assertTrue(e.getMessage().contains("test-only"), e.getMessage());
    }

    @Test
    @DisplayName("RcOptions copy private data and refuse out-of-range values")
    void rcOptions() {
        byte[] data = {7};
        RcOptions o = RcOptions.defaults().withPrivateData(data);
        data[0] = 0;
        assertArrayEquals(new byte[] {7}, o.privateData());
        assertThrows(IllegalArgumentException.class, () -> RcOptions.defaults().withQueueDepth(0, 1));
        assertThrows(IllegalArgumentException.class, () -> RcOptions.defaults().withTimeoutMs(0));
        assertThrows(IllegalArgumentException.class, () -> RcOptions.defaults().withBacklog(-1));
        assertThrows(IllegalArgumentException.class, () -> RcOptions.defaults().withSge(0, 0));
        assertEquals(java.util.Set.of(WrOpcode.SEND), RcOptions.defaults().withSendOps(WrOpcode.SEND).sendOps());
    }
}
