package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.verbs4j.provider.nativecommon.internal.CLayout.ANONYMOUS;
import static org.verbs4j.provider.nativecommon.internal.CLayout.chars;
import static org.verbs4j.provider.nativecommon.internal.CLayout.ptr;
import static org.verbs4j.provider.nativecommon.internal.CLayout.struct;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u16;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u32;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u64;
import static org.verbs4j.provider.nativecommon.internal.CLayout.u8;
import static org.verbs4j.provider.nativecommon.internal.CLayout.union;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The System V x86-64 placement rules of {@link CLayout}, without a C compiler. */
class CLayoutTest {
    @Test
    @DisplayName("members sit at their natural alignment and the struct is padded to its largest one")
    void alignsAndPads() {
        CLayout s = struct("s", u8("a"), u32("b"), u16("c"), ptr("d"), u8("e"));
        assertEquals(0, s.offset("a"));
        assertEquals(4, s.offset("b"));
        assertEquals(8, s.offset("c"));
        assertEquals(16, s.offset("d"));
        assertEquals(24, s.offset("e"));
        assertEquals(32, s.size());
        assertEquals(8, s.alignment());
    }

    @Test
    @DisplayName("a union is as large as its largest member, rounded to its alignment, every member at 0")
    void unions() {
        CLayout u = union("u", chars("c", 5), u32("i"));
        assertEquals(8, u.size());
        CLayout s = struct("s", u16("x"), union(ANONYMOUS + "0", u64("l"), u8("b")).withName(ANONYMOUS + "0"));
        assertEquals(8, s.offset(ANONYMOUS + "0.b"));
        assertEquals("b", CLayout.cPath(ANONYMOUS + "0.b"));
        assertEquals(16, s.size());
    }

    @Test
    @DisplayName("a path that names no member is refused, naming the path")
    void unknownPath() {
        CLayout s = struct("s", struct("in", u32("x")).withName("in"));
        assertEquals(0, s.offset("in.x"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.offset("in.y"));
        assertEquals("s has no member in.y", e.getMessage());
    }
}
