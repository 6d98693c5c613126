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
     * @param extended whether it is a member of {@code struct verbs_context} (else of {@code ibv_context.ops})
     * @param offset its offset in that struct ({@code struct ibv_context} for {@code ibv_context.ops}), bytes
     */
    record Member(boolean extended, long offset) {}

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

    private static Map<String, Member> members() {
        Map<String, Member> members = new HashMap<>();
        for (Method method : LibIbverbsOps.class.getMethods()) {
            COp op = method.getAnnotation(COp.class);
            String name = method.getName();
            Member m = switch (op.struct()) {
                case "verbs_context" -> new Member(true, ContextStructs.verbs_context.DESC.offset(name));
                case "ibv_context_ops" -> new Member(false, ContextStructs.ibv_context.DESC.offset("ops." + name));
                default -> throw new IllegalStateException(method + ": no struct " + op.struct());
            };
            members.put(name, m);
        }
        return Map.copyOf(members);
    }
}
