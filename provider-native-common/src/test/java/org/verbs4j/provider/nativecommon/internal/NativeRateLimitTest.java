package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpRateLimit;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.Binding;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakeContext;
import org.verbs4j.provider.nativecommon.internal.NativeObjectModelTest.FakeCq;

/**
 * {@code ibv_modify_qp_rate_limit(3)} over the recording binding of {@link NativeObjectModelTest}: the fields of
 * {@code struct ibv_qp_rate_limit_attr} through {@code verbs_context.modify_qp_rate_limit}, EOPNOTSUPP from a library
 * without the op before any call, the device's errno named, and nothing after close.
 */
class NativeRateLimitTest {
    private static final long PD = 0x6000;
    private static final long QP = 0x9000;
    private static final long MODIFY_QP_RATE_LIMIT = 0xe5;

    private final Binding binding = new Binding();

    {
        binding.recordMemory = false;
    }

    private final FakeContext context = new FakeContext(binding);
    private final FakeCq cq = new FakeCq(context, 0x7000);

    private QueuePair qp() {
        binding.createResult = PD;
        NativeProtectionDomain p = NativeProtectionDomain.alloc(context);
        binding.nextObject = QP;
        binding.queryQpResult = -Errno.EINVAL;
        return p.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(4).build());
    }

    @Test
    @DisplayName("the rate, burst and packet size reach verbs_context.modify_qp_rate_limit; the device's errno names the verb")
    void fieldsThroughTheOp() {
        context.modifyQpRateLimit = MODIFY_QP_RATE_LIMIT;
        QueuePair q = qp();
        binding.calls.clear();
        q.modifyRateLimit(new QpRateLimit(0xfffff000, 65536, 1500));
        assertTrue(binding.calls.contains("modifyQpRateLimit " + MODIFY_QP_RATE_LIMIT + " " + QP + " rate "
                + 0xfffff000 + " burst 65536 packet 1500"), binding.calls.toString());
        binding.failWith = Errno.EINVAL;
        VerbsException e = assertThrows(VerbsException.class, () -> q.modifyRateLimit(new QpRateLimit(1, 0, 0)));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("ibv_modify_qp_rate_limit", e.verb());
        binding.failWith = 0;
        q.close();
        assertThrows(IllegalStateException.class, () -> q.modifyRateLimit(QpRateLimit.UNLIMITED));
    }

    @Test
    @DisplayName("a library without modify_qp_rate_limit (librxe) answers EOPNOTSUPP before any call")
    void noOp() {
        QueuePair q = qp();
        binding.calls.clear();
        VerbsException e = assertThrows(VerbsException.class, () -> q.modifyRateLimit(new QpRateLimit(1000, 0, 0)));
        assertEquals(Errno.EOPNOTSUPP, e.errno());
        assertTrue(binding.calls.stream().noneMatch(c -> c.startsWith("modifyQpRateLimit")), binding.calls.toString());
        q.close();
    }
}
