package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Gid;

/** The Cleaner's record of a context never closed, over the fake binding of {@link NativeObjectModelTest}. */
class NativeContextResourcesTest {
    private static final long CONTEXT = 0x1000;
    private static final long QP = 0x2000;
    private static final long OTHER_QP = 0x3000;
    private static final Gid G1 = Gid.ofIpv4(new byte[] {(byte) 239, 1, 1, 1});
    private static final Gid G2 = Gid.ofIpv4(new byte[] {(byte) 239, 1, 1, 2});

    @Test
    @DisplayName("a QP still attached when its context is collected is detached from each group left, then destroyed; a detached group and a destroyed QP are forgotten")
    void attachedQpDetachedBeforeDestroy() {
        NativeObjectModelTest.Binding binding = new NativeObjectModelTest.Binding();
        binding.recordMemory = false;
        NativeContextResources r = new NativeContextResources(binding, CONTEXT);
        r.add(NativeKind.QP, QP);
        r.add(NativeKind.QP, OTHER_QP);
        r.multicast(QP, G1, 0xc001, true);
        r.multicast(QP, G2, 0xc002, true);
        r.multicast(QP, G1, 0xc001, false);
        r.multicast(OTHER_QP, G1, 0xc003, true);
        r.remove(NativeKind.QP, OTHER_QP); // destroyed by its owner, attachments and all
        r.add(NativeKind.QP, OTHER_QP); // the address reused by a new QP, attached to nothing
        r.run();
        assertEquals(List.of("destroyQp " + OTHER_QP, "detachMcast " + QP + " " + G2 + " " + 0xc002, "destroyQp " + QP,
                "closeDevice " + CONTEXT), binding.calls);
    }
}
