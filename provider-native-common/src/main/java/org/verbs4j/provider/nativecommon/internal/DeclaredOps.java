package org.verbs4j.provider.nativecommon.internal;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

/**
 * Where each op that {@link LibIbverbsOps} declares sits, from its {@link COp#struct} and its name, so that a new op
 * verb is its declaration and its caller ({@link NativeContextSupport#op}), with no offset constant written by hand.
 */
final class DeclaredOps {
    /**
     * One op's place.
     *
     * @param struct the struct that holds it: {@code verbs_context}, {@code ibv_context_ops}, or an object's
     *     ({@code ibv_dm})
     * @param offset its offset in that struct ({@code struct ibv_context} for {@code ibv_context.ops}), bytes
     */
    record Member(String struct, long offset) {
        /** {@return whether it is a member of {@code struct verbs_context}} */
        boolean extended() {
            return struct.equals("verbs_context");
        }

        /** {@return whether it is an op of the context, in {@code ibv_context.ops} or {@code verbs_context}} */
        boolean ofContext() {
            return extended() || struct.equals("ibv_context_ops");
        }
    }

    private static final Map<String, Member> MEMBERS = members();

    private DeclaredOps() {}

    /**
     * Finds an op.
     *
     * @param name the op's member name
     * @return its place
     * @throws IllegalArgumentException if {@link LibIbverbsOps} declares no op of that name
     */
    static Member member(String name) {
        Member m = MEMBERS.get(name);
        if (m == null) {
            throw new IllegalArgumentException("LibIbverbsOps declares no op named " + name);
        }
        return m;
    }

    /**
     * Finds an op that an object carries, such as {@code ibv_dm.memcpy_to_dm}.
     *
     * @param struct the object's struct, without {@code struct}
     * @param name the op's member name
     * @return its offset in the object, bytes
     * @throws IllegalArgumentException if {@link LibIbverbsOps} declares no such op of that struct
     */
    static long objectOp(String struct, String name) {
        Member m = member(name);
        if (!m.struct().equals(struct)) {
            throw new IllegalArgumentException(name + " is an op of " + m.struct() + ", not of " + struct);
        }
        return m.offset();
    }

    private static Map<String, Member> members() {
        Map<String, Member> members = new HashMap<>();
        for (Method method : LibIbverbsOps.class.getMethods()) {
            COp op = method.getAnnotation(COp.class);
            String name = method.getName();
            Member m = switch (op.struct()) {
                case "verbs_context" -> new Member(op.struct(), ContextStructs.verbs_context.DESC.offset(name));
                case "ibv_context_ops" -> new Member(op.struct(), ContextStructs.ibv_context.DESC.offset("ops." + name));
                case "ibv_dm" -> new Member(op.struct(), MemoryStructs.ibv_dm.DESC.offset(name));
                default -> throw new IllegalStateException(method + ": no struct " + op.struct());
            };
            members.put(name, m);
        }
        return Map.copyOf(members);
    }
}
