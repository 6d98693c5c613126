package org.verbs4j.tck;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.verbs4j.Capabilities;
import org.verbs4j.MwType;
import org.verbs4j.QpType;
import org.verbs4j.WrOpcode;

/**
 * The base of every area of the kit: a fresh {@link Testbed} per test, closed after it, and the
 * capability assumptions that turn a missing feature into a skip with its reason.
 */
@ExtendWith(TckArea.RequireAvailableProvider.class)
public abstract class TckArea {
    /**
     * Aborts an area when the kit found the provider unavailable. Aborting, not disabling: build tools expand a
     * disabled container into one skipped result per test, while the kit's availability rule is meant to be the
     * only result an unavailable provider gets.
     */
    static final class RequireAvailableProvider implements BeforeAllCallback {
        @Override
        public void beforeAll(ExtensionContext context) {
            String reason = context.getParent().flatMap(ExtensionContext::getTestInstance)
                    .filter(VerbsCompatibilityKit.class::isInstance).map(VerbsCompatibilityKit.class::cast)
                    .map(VerbsCompatibilityKit::unavailableReason).orElse(null);
            assumeTrue(reason == null, reason);
        }
    }

    private final VerbsCompatibilityKit kit;
    /** The test's testbed: an open context and PD on the device under test. */
    protected Testbed tb;

    /**
     * An area of rules, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected TckArea(VerbsCompatibilityKit kit) {
        this.kit = kit;
    }

    /** {@return the kit running this area} */
    protected VerbsCompatibilityKit kit() {
        return kit;
    }

    @BeforeEach
    void openTestbed() {
        tb = kit.openTestbed();
    }

    @AfterEach
    void closeTestbed() {
        if (tb != null) {
            tb.close();
            tb = null;
        }
    }

    /** {@return what the device under test can do} */
    protected Capabilities caps() {
        return tb.caps();
    }

    /**
     * Skips the test unless the device creates QPs of a type.
     *
     * @param type the QP type the test needs
     */
    protected void assumeQp(QpType type) {
        assumeTrue(caps().supports(type), () -> "capability: the device does not create " + type + " QPs");
    }

    /**
     * Skips the test unless the device executes an opcode on QPs of a type.
     *
     * @param type the QP type the test needs
     * @param op the opcode the test posts
     */
    protected void assumeOp(QpType type, WrOpcode op) {
        assumeQp(type);
        assumeTrue(caps().supports(type, op), () -> "capability: the device does not execute " + op + " on " + type);
    }

    /**
     * Skips the test unless the device supports WR sessions ({@code ibv_wr_*}) on a QP type with the opcodes.
     *
     * @param type the QP type the test needs
     * @param ops the opcodes the test posts through the session
     */
    protected void assumeSession(QpType type, WrOpcode... ops) {
        assumeTrue(caps().wrSession(), "capability: the device has no WR session API (ibv_wr_*)");
        for (WrOpcode op : ops) {
            assumeOp(type, op);
        }
        assumeQp(type);
    }

    /**
     * Skips the test unless the device's QPs can hold a queue of a depth ({@code max_qp_wr}).
     *
     * @param depth the send or receive queue depth the test asks for, in WRs
     */
    protected void assumeQueueDepth(int depth) {
        int max = tb.deviceAttributes().maxQpWr();
        assumeTrue(max >= depth, () -> "capability: max_qp_wr " + max + " is below " + depth);
    }

    /**
     * Skips the test unless the device allocates memory windows of a type.
     *
     * @param type the window type the test needs
     */
    protected void assumeMw(MwType type) {
        assumeTrue(caps().supports(type), () -> "capability: the device has no memory windows of " + type);
    }

    /** Skips unless the device has atomics. */
    protected void assumeAtomics() {
        assumeTrue(caps().atomics() != org.verbs4j.AtomicCapability.NONE, "capability: the device has no atomics");
        assumeOp(QpType.RC, WrOpcode.ATOMIC_FETCH_AND_ADD);
    }
}
