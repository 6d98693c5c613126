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
            String struct = m.getAnnotation(COp.class).struct();
            assertEquals(struct, member.struct(), m.getName());
            long expected = switch (struct) {
                case "verbs_context" -> ContextStructs.verbs_context.DESC.offset(m.getName());
                case "ibv_context_ops" -> ContextStructs.ibv_context.DESC.offset("ops." + m.getName());
                default -> MemoryStructs.ibv_dm.DESC.offset(m.getName());
            };
            assertEquals(expected, member.offset(), m.getName());
            assertEquals(!struct.equals("ibv_dm"), member.ofContext(), m.getName());
        }
        // an object's op is found from its struct, and only there
        assertEquals(MemoryStructs.ibv_dm.DESC.offset("memcpy_to_dm"), DeclaredOps.objectOp("ibv_dm", "memcpy_to_dm"));
        assertThrows(IllegalArgumentException.class, () -> DeclaredOps.objectOp("ibv_dm", "free_dm"));
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
