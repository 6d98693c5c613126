package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.QpAttrMask;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpState;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;

/**
 * A modify whose mask names an attribute that was never set (issue 26: rules written for the survivors of mutation
 * testing of the shared argument checks, {@code Arguments.modifyAttributes}; tck/reports/mutation.md). Each mask bit
 * whose attribute has no default (the address vector, the alternate path, the capabilities) is checked on its own:
 * the one rule that covered them, with {@code QpAttrMask.ALL}, stopped at the first missing attribute, so the check
 * of every later one could be dropped unseen. (The states, the path MTU and the migration state have defaults and
 * setters that refuse null, so their mask bits always come with a value.) {@code ibv_modify_qp(3)} reads each attribute
 * its mask names; a Java caller that names one and sets none gets a NullPointerException that names it, before the
 * provider or the library reads anything, and the QP is unchanged.
 */
public abstract class QpAttributeMaskRules extends TckArea {
    /**
     * The rules of this area, run against the kit's provider.
     *
     * @param kit the vendor's kit: the provider and its capabilities
     */
    protected QpAttributeMaskRules(VerbsCompatibilityKit kit) {
        super(kit);
    }

    static Stream<Arguments> maskBits() {
        return Stream.of(
                Arguments.of("AV", QpAttrMask.AV, "attributes.ahAttr"),
                Arguments.of("ALT_PATH", QpAttrMask.ALT_PATH, "attributes.altAhAttr"),
                Arguments.of("CAP", QpAttrMask.CAP, "attributes.cap"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maskBits")
    @DisplayName("required_ modify with one mask bit whose attribute was never set throws a NullPointerException naming that attribute, and the QP stays in RESET [ibv_modify_qp(3) attr_mask: the attributes the mask names are read; DESIGN.md Errors]")
    void required_maskBitWithoutItsAttribute(String bit, int mask, String attribute) {
        QueuePair qp = tb.qp(QpType.RC, tb.cq(8), null);
        QpAttributes a = new QpAttributes().mask(mask);
        NullPointerException e = Expect.thrown("modify with mask " + bit + " and no value", NullPointerException.class,
                () -> qp.modify(a));
        String message = String.valueOf(e.getMessage());
        assertTrue(message.contains(attribute), "the exception must name " + attribute + ": " + message);
        assertEquals(QpState.RESET, qp.state(), "a refused modify leaves the QP's state alone");
    }
}
