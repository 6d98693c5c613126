package org.verbs4j.emuverbs;

import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Which parts of the TCK run through the forwarding libibverbs ({@link EmuVerbs}), and why the others do not: a kit
 * area (by its nested class) or a rule (by its method name) listed here is disabled with its reason, and only while
 * the forwarding library is loaded; against a real device (the soft-RoCE guest) the whole kit runs.
 */
public final class ForwardedAreas implements ExecutionCondition {
    /** Areas that do not run through the forwarding library, by the kit's nested class name, with the reason. */
    static final Map<String, String> AREAS = Map.of(
            "ConnectionManagement", "capability the forwarding cannot give: librdmacm talks to the kernel's rdma_cm"
                    + " (/dev/infiniband/rdma_cm), which has no emuverbs0; the CM rules stay guest-only",
            "ConnectionMisuse", "capability the forwarding cannot give: librdmacm (see ConnectionManagement)",
            "ConnectionOptions", "capability the forwarding cannot give: librdmacm (see ConnectionManagement)",
            "ConnectionMulticast", "capability the forwarding cannot give: librdmacm (see ConnectionManagement)");
    /** Rules that do not run through the forwarding library, by method name, with the reason. */
    static final Map<String, String> RULES = Map.of();

    /** JUnit creates it. */
    public ForwardedAreas() {}

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (!EmuVerbs.isRegistered()) {
            return ConditionEvaluationResult.enabled("a real libibverbs: the whole kit runs");
        }
        if (context.getTestMethod().isPresent()) {
            String why = RULES.get(context.getTestMethod().get().getName());
            if (why != null) {
                return ConditionEvaluationResult.disabled("not through the forwarding libibverbs: " + why);
            }
        }
        for (Class<?> c = context.getTestClass().orElse(null); c != null; c = c.getEnclosingClass()) {
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                String why = AREAS.get(k.getSimpleName());
                if (why != null) {
                    return ConditionEvaluationResult.disabled("not through the forwarding libibverbs: " + why);
                }
            }
        }
        return ConditionEvaluationResult.enabled("forwarded");
    }
}
