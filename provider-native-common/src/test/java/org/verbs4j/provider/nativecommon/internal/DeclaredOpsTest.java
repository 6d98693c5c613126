package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** Each op of {@link LibIbverbsOps} is found where its struct puts it, and an undeclared name is refused. */
class DeclaredOpsTest {
    @Test
    void everyDeclaredOpIsFoundInItsStruct() {
        for (Method m : LibIbverbsOps.class.getMethods()) {
            DeclaredOps.Member member = DeclaredOps.member(m.getName());
            boolean extended = m.getAnnotation(COp.class).struct().equals("verbs_context");
            assertEquals(extended, member.extended(), m.getName());
            assertEquals(extended ? ContextStructs.verbs_context.DESC.offset(m.getName())
                    : ContextStructs.ibv_context.DESC.offset("ops." + m.getName()), member.offset(), m.getName());
        }
        // two that the layouts place apart: verbs_context's first op, and ibv_context.ops after the device pointer
        assertEquals(0, DeclaredOps.member("query_port").offset());
        assertTrue(DeclaredOps.member("req_notify_cq").offset() > 8);
    }

    @Test
    void anUndeclaredOpIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeclaredOps.member("alloc_null_mr"));
        assertTrue(e.getMessage().contains("alloc_null_mr"), e.getMessage());
    }
}
