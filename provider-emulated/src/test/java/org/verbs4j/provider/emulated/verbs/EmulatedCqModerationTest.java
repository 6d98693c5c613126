package org.verbs4j.provider.emulated.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Capabilities;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.EmulatedProvider;

/** {@code ibv_modify_cq} on the emulated device: mlx5's {@code cq_mod_caps}, recorded per CQ, refusals leave it. */
class EmulatedCqModerationTest {
    @Test
    @DisplayName("the emulated CQ records the moderation it accepts and keeps it when a value is refused")
    void recordsModeration() {
        try (Context ctx = new EmulatedProvider().devices().get(0).open()) {
            Capabilities caps = ctx.capabilities();
            assertEquals(0xffff, caps.maxCqModerationCount());
            assertEquals(4095, caps.maxCqModerationPeriod());
            EmulatedCompletionQueue cq = (EmulatedCompletionQueue) ctx.createCq(8);
            assertEquals(0, cq.moderation(), "no moderation until set");
            cq.modifyModeration(0xffff, 4095);
            assertEquals(0xffff | 4095 << 16, cq.moderation());
            VerbsException e = assertThrows(VerbsException.class, () -> cq.modifyModeration(16, 4096));
            assertEquals(Errno.EINVAL, e.errno());
            assertEquals("ibv_modify_cq", e.verb());
            assertEquals(0xffff | 4095 << 16, cq.moderation(), "a refused moderation changes nothing");
            cq.modifyModeration(0, 0);
            assertEquals(0, cq.moderation());
        }
    }
}
