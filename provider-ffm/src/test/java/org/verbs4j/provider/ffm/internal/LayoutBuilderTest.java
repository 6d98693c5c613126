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
import org.verbs4j.provider.nativecommon.internal.ContextStructs;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;
import org.verbs4j.provider.nativecommon.internal.QpStructs;
import org.verbs4j.provider.nativecommon.internal.StructCatalog;

/**
 * Every struct of the shared description, built as an FFM layout by {@link LayoutBuilder}, is that description:
 * the same size and every named member at the same offset; and {@link Structs} holds those layouts. The description itself is checked against {@code verbs.h} in
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
    @DisplayName("Structs' layouts are the described ones")
    void structsAreDescribed() {
        assertEquals(ContextStructs.ibv_device.DESC.size(), Structs.ibv_device.LAYOUT.byteSize());
        assertEquals(QpStructs.ibv_qp_attr.DESC.size(), Structs.ibv_qp_attr.LAYOUT.byteSize());
        assertEquals(PosixStructs.pollfd.DESC.size(), Structs.pollfd.LAYOUT.byteSize());
    }

    @Test
    @DisplayName("each described struct, built for FFM, has the described size and every member at the described offset")
    void ffmLayoutsAreTheDescription() {
        Map<String, CLayout> described = new LinkedHashMap<>();
        StructCatalog.all().forEach(f -> f.structs().forEach(s -> described.put(s.name(), s)));
        int members = 0;
        for (CLayout d : described.values()) {
            StructLayout l = LayoutBuilder.layout(d);
            assertEquals(d.name(), l.name().orElseThrow());
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

    private static final StructLayout SEND_WR =
            LayoutBuilder.layout(QpStructs.ibv_send_wr.DESC);

    @Test
    @DisplayName("a VarHandle path and the shared offset constant name the same bytes")
    void varHandlePathsMatchOffsets() {
        assertEquals(QpStructs.ibv_send_wr.imm_data$off,
                LayoutBuilder.offset(SEND_WR, CLayout.ANONYMOUS + "0.imm_data"));
        assertEquals(QpStructs.ibv_send_wr.bind_mw$bind_info$off,
                LayoutBuilder.offset(SEND_WR, CLayout.ANONYMOUS + "1.bind_mw.bind_info"));
    }
}
