package org.verbs4j.provider.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.provider.nativecommon.internal.CLayout;
import org.verbs4j.provider.nativecommon.internal.StructCatalog;

/**
 * Every FFM layout of {@link Structs} is the shared description it is built from: the same size and every
 * named member at the same offset. The description itself is checked against {@code verbs.h} in
 * provider-native-common, so together they check the FFM layouts against C.
 */
class LayoutBuilderTest {
    private static void ffmOffsets(Map<String, Long> out, String prefix, GroupLayout g, long base) {
        long offset = 0;
        for (MemoryLayout m : g.memberLayouts()) {
            long at = base + (g instanceof UnionLayout ? 0 : offset);
            if (!(m instanceof PaddingLayout)) {
                String path = prefix + m.name().orElseThrow();
                out.put(path, at);
                if (m instanceof GroupLayout inner) {
                    ffmOffsets(out, path + ".", inner, at);
                }
            }
            offset += m.byteSize();
        }
    }

    private static void describedOffsets(Map<String, Long> out, String prefix, CLayout g, long base) {
        for (CLayout.Member m : g.members()) {
            String path = prefix + m.layout().name();
            out.put(path, base + m.offset());
            if (!m.layout().members().isEmpty()) {
                describedOffsets(out, path + ".", m.layout(), base + m.offset());
            }
        }
    }

    @Test
    @DisplayName("each FFM struct layout has the described size and every member at the described offset")
    void ffmLayoutsAreTheDescription() {
        Map<String, CLayout> described = new LinkedHashMap<>();
        StructCatalog.all().forEach(f -> f.structs().forEach(s -> described.put(s.name(), s)));
        int members = 0;
        for (StructLayout l : Structs.all()) {
            CLayout d = described.get(l.name().orElseThrow());
            assertTrue(d != null, l.name() + " is not in the shared description");
            assertEquals(d.size(), l.byteSize(), d.name() + " size");
            assertEquals(d.alignment(), l.byteAlignment(), d.name() + " alignment");
            Map<String, Long> want = new LinkedHashMap<>();
            Map<String, Long> got = new LinkedHashMap<>();
            describedOffsets(want, "", d, 0);
            ffmOffsets(got, "", l, 0);
            assertEquals(want, got, d.name() + " members");
            members += want.size();
        }
        assertTrue(members > 400, "too few members compared: " + members);
    }

    @Test
    @DisplayName("a VarHandle path and the shared offset constant name the same bytes")
    void varHandlePathsMatchOffsets() {
        assertEquals(org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr.imm_data$off,
                LayoutBuilder.offset(Structs.ibv_send_wr.LAYOUT, CLayout.ANONYMOUS + "0.imm_data"));
        assertEquals(org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_send_wr.bind_mw$bind_info$off,
                LayoutBuilder.offset(Structs.ibv_send_wr.LAYOUT, CLayout.ANONYMOUS + "1.bind_mw.bind_info"));
    }
}
