package org.verbs4j.tck;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.verbs4j.spi.VerbsProvider;

/**
 * The verbs4j Technology Compatibility Kit: every behavioural rule a verbs4j provider must follow, from
 * the libibverbs manual pages and, where they are silent, the verbs spec as Linux soft-RoCE (rxe) implements it.
 *
 * <p>A provider module runs it with a subclass of a few lines:
 * <pre>{@code
 * class MyCompatibilityTest extends VerbsCompatibilityKit {
 *     @Override
 *     protected VerbsProvider provider() {
 *         return new MyProvider();
 *     }
 * }
 * }</pre>
 *
 * <p>If the provider is not available here, the whole kit is one skipped container whose reason is the
 * provider's {@link VerbsProvider#unavailabilityCause()}. A feature the device lacks, as its
 * {@link org.verbs4j.Capabilities} say, skips the tests that need it with that reason.
 *
 * <p>The device under test is the first the provider lists, unless the system property
 * {@value #DEVICE_PROPERTY} or the environment variable {@value #DEVICE_ENV} names one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class VerbsCompatibilityKit {
    /** The system property that names the device under test. */
    public static final String DEVICE_PROPERTY = "verbs4j.rdma.device";
    /** The environment variable that names the device under test (the soft-RoCE VM sets it to rxe0). */
    public static final String DEVICE_ENV = "VERBS4J_RDMA_DEVICE";
    /**
     * The system property that names the source GID index; by default, on RoCE, perftest's choice (the IPv4 RoCE v2
     * GID where there is one, {@link org.verbs4j.GidEntry#preferred}), else the first non-zero GID.
     */
    public static final String GID_INDEX_PROPERTY = "verbs4j.rdma.gidIndex";

    private VerbsProvider provider;

    /** A vendor's kit: the subclass names the provider. */
    protected VerbsCompatibilityKit() {}

    /** {@return the provider under test: a new instance, not one cached by {@link org.verbs4j.Verbs#provider()}} */
    protected abstract VerbsProvider provider();

    /** {@return the name of the device under test, or null for the provider's first device} */
    protected String deviceName() {
        String name = System.getProperty(DEVICE_PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(DEVICE_ENV);
        }
        return name == null || name.isBlank() ? null : name.trim();
    }

    /**
     * The device that holds the {@code b} QP of every pair the kit connects, or null for loopback pairs on the
     * device under test. A provider with devices that reach each other (two RoCE devices on one network) names the
     * second one here: each pair then spans two contexts, each with its own PD, CQs and buffers, addressed through
     * the other device's GID. Rules that are about one device (its own objects, loopback) still use one.
     *
     * @return the second device's name, or null (the default)
     */
    protected String peerDeviceName() {
        return null;
    }

    /** {@return the port under test, 1-based} */
    protected int port() {
        return 1;
    }

    /** {@return the source GID index for connections, or -1 for the default of {@link #GID_INDEX_PROPERTY}} */
    protected int gidIndex() {
        return Integer.getInteger(GID_INDEX_PROPERTY, -1);
    }

    /** Why the provider cannot be tested, or null once it was found available. */
    private String unavailable = "the kit has not started";

    @BeforeAll
    final void findProvider() {
        VerbsProvider p = provider();
        if (p == null) {
            unavailable = "provider() returned null";
        } else if (!p.isAvailable()) {
            unavailable = "verbs4j provider '" + p.name() + "' is not available: "
                    + (p.unavailabilityCause() == null ? "no reason given" : p.unavailabilityCause());
        } else {
            unavailable = null;
            this.provider = p;
        }
    }

    /**
     * The one result an unavailable provider gets: skipped, with the cause. Every area is then aborted
     * without a result of its own (see {@link TckArea}), so the run never reads as a pass or a wall of failures.
     */
    @Test
    @DisplayName("required_ the provider under test is available [DESIGN.md Choosing a provider]")
    final void required_providerIsAvailable() {
        assumeTrue(unavailable == null, unavailable);
    }

    /** Why the provider cannot be tested, or null when it can. */
    final String unavailableReason() {
        return unavailable;
    }

    /**
     * The provider under test, once the kit found it available.
     *
     * @return the provider
     * @throws IllegalStateException before the kit started, or when the provider is unavailable
     */
    public final VerbsProvider providerUnderTest() {
        if (provider == null) {
            throw new IllegalStateException("the kit has not started or the provider is unavailable");
        }
        return provider;
    }

    /** The misuse walk's length unless {@value #MISUSE_WALK_STEPS_PROPERTY} or the kit says otherwise. */
    public static final int DEFAULT_MISUSE_WALK_STEPS = 2000;
    /** The system property that sets the misuse walk's length in steps (calls). */
    public static final String MISUSE_WALK_STEPS_PROPERTY = "verbs4j.tck.misuseSteps";

    /**
     * The length of the Misuse area's random walk, in calls. A fast device (the emulator on a host) can afford
     * 100,000; a slow one (a JVM under emulation driving soft-RoCE) a few thousand.
     *
     * @return the system property {@value #MISUSE_WALK_STEPS_PROPERTY}, else {@value #DEFAULT_MISUSE_WALK_STEPS}
     */
    protected int misuseWalkSteps() {
        return Integer.getInteger(MISUSE_WALK_STEPS_PROPERTY, DEFAULT_MISUSE_WALK_STEPS);
    }

    /**
     * The ACK timeout code of the kit's RC QPs ({@code ibv_modify_qp(3)} {@code timeout}: 4.096 microseconds times 2
     * to its power). A device whose answers can be late without being lost (a user-space transport on a loaded
     * machine) may ask for more; the rules that test the timeout itself set their own.
     *
     * @return {@link Testbed#ACK_TIMEOUT} unless the kit says otherwise
     */
    protected int ackTimeout() {
        return Testbed.ACK_TIMEOUT;
    }

    /** {@return a new testbed on the device under test, with the {@linkplain #peerDeviceName() peer} if any; the caller closes it} */
    public Testbed openTestbed() {
        return Testbed.open(providerUnderTest(), deviceName(), port(), gidIndex(), ackTimeout(), peerDeviceName());
    }

    @Nested
    @DisplayName("Discovery")
    class Discovery extends DiscoveryRules {
        Discovery() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("PD, MR, MW")
    class Memory extends MemoryRules {
        Memory() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("PD, MR, MW: window bounds")
    class WindowBounds extends WindowBoundRules {
        WindowBounds() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("PD, MR, MW: zero-based regions")
    class ZeroBasedRegions extends ZeroBasedRegionRules {
        ZeroBasedRegions() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("CQ")
    class Cq extends CqRules {
        Cq() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("QP state machine")
    class QpStateMachine extends QpStateRules {
        QpStateMachine() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("QP attributes: mask")
    class QpAttributeMaskArea extends QpAttributeMaskRules {
        QpAttributeMaskArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("WR session")
    class WrSessionArea extends WrSessionRules {
        WrSessionArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("WR session: limits")
    class SessionLimitArea extends SessionLimitRules {
        SessionLimitArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("postSend")
    class PostSendArea extends PostSendRules {
        PostSendArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("postSend: inline regions")
    class InlineRegionArea extends InlineRegionRules {
        InlineRegionArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Prepared sends")
    class PreparedSendArea extends PreparedSendRules {
        PreparedSendArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Data in order")
    class DataInOrderArea extends DataInOrderRules {
        DataInOrderArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Transport")
    class Transport extends TransportRules {
        Transport() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Transport: UD GRH")
    class UdGrhArea extends UdGrhRules {
        UdGrhArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Errors")
    class Errors extends ErrorRules {
        Errors() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Errors: multi-packet messages")
    class MultiPacketErrors extends MultiPacketErrorRules {
        MultiPacketErrors() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Misuse: sessions and close")
    class SessionMisuse extends SessionMisuseRules {
        SessionMisuse() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Misuse: lifetimes")
    class LifetimeMisuse extends LifetimeMisuseRules {
        LifetimeMisuse() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Lifecycle and bad input")
    class Lifecycle extends LifecycleRules {
        Lifecycle() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Misuse")
    class Misuse extends MisuseRules {
        Misuse() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Connection management")
    class ConnectionManagement extends ConnectionRules {
        ConnectionManagement() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Connection options")
    class ConnectionOptions extends CmOptionRules {
        ConnectionOptions() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Connection multicast")
    class ConnectionMulticast extends CmMulticastRules {
        ConnectionMulticast() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Misuse: connection manager")
    class ConnectionMisuse extends ConnectionMisuseRules {
        ConnectionMisuse() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Multicast")
    class Multicast extends MulticastRules {
        Multicast() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Device memory")
    class DeviceMemoryArea extends DeviceMemoryRules {
        DeviceMemoryArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("MR re-registration")
    class ReregArea extends ReregRules {
        ReregArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("dma-buf regions")
    class DmabufArea extends DmabufRules {
        DmabufArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("XRC")
    class XrcArea extends XrcRules {
        XrcArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Packet pacing")
    class RateLimitArea extends RateLimitRules {
        RateLimitArea() {
            super(VerbsCompatibilityKit.this);
        }
    }

    @Nested
    @DisplayName("Thread domains")
    class ThreadDomainArea extends ThreadDomainRules {
        ThreadDomainArea() {
            super(VerbsCompatibilityKit.this);
        }
    }
}
