package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("NativeKind follows the close order written once in VerbsObjectKind")
class NativeKindTest {
    @Test
    @DisplayName("each kind but MEMORY closes after the kinds before it in VerbsObjectKind, and MEMORY is freed last")
    void followsVerbsObjectKind() {
        NativeKind[] kinds = NativeKind.values();
        for (int i = 1; i < kinds.length - 1; i++) {
            assertTrue(kinds[i - 1].object().ordinal() < kinds[i].object().ordinal(),
                    kinds[i - 1] + " must come before " + kinds[i] + " as VerbsObjectKind orders them");
        }
        assertNull(kinds[kinds.length - 1].object(), "MEMORY, freed last, is no verbs object");
    }
}
