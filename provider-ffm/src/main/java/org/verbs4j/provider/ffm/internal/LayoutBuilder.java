package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.verbs4j.provider.nativecommon.internal.CLayout;

/**
 * Turns the shared C layout description ({@link CLayout}) into FFM {@link MemoryLayout}s: every member at
 * the offset the description gives it, padding where C pads, the names kept (anonymous unions keep their
 * {@link CLayout#ANONYMOUS} names, so every field has a dotted path).
 */
public final class LayoutBuilder {
    private LayoutBuilder() {}

    /** The FFM layout of a described struct. */
    static StructLayout layout(CLayout struct) {
        if (struct.kind() != CLayout.Kind.STRUCT) {
            throw new IllegalArgumentException(struct + " is not a struct");
        }
        return (StructLayout) of(struct);
    }

    /** The FFM layout of any described type. */
    static MemoryLayout of(CLayout c) {
        MemoryLayout l = switch (c.kind()) {
            case SCALAR -> switch ((int) c.size()) {
                case 1 -> JAVA_BYTE;
                case 2 -> JAVA_SHORT;
                case 4 -> JAVA_INT;
                case 8 -> JAVA_LONG;
                default -> throw new IllegalArgumentException(c + ": no Java integer of that size");
            };
            case POINTER -> ADDRESS;
            case ARRAY -> MemoryLayout.sequenceLayout(c.count(), of(c.element()));
            case STRUCT -> struct(c);
            case UNION -> union(c);
        };
        return l.withName(c.name());
    }

    private static MemoryLayout struct(CLayout c) {
        List<MemoryLayout> out = new ArrayList<>();
        long at = 0;
        for (CLayout.Member m : c.members()) {
            if (m.offset() > at) {
                out.add(MemoryLayout.paddingLayout(m.offset() - at));
            }
            out.add(of(m.layout()));
            at = m.offset() + m.layout().size();
        }
        if (c.size() > at) {
            out.add(MemoryLayout.paddingLayout(c.size() - at));
        }
        return MemoryLayout.structLayout(out.toArray(MemoryLayout[]::new));
    }

    private static MemoryLayout union(CLayout c) {
        List<MemoryLayout> out = new ArrayList<>();
        long largest = 0;
        for (CLayout.Member m : c.members()) {
            out.add(of(m.layout()));
            largest = Math.max(largest, m.layout().size());
        }
        if (c.size() > largest) {
            out.add(MemoryLayout.paddingLayout(c.size()));
        }
        return MemoryLayout.unionLayout(out.toArray(MemoryLayout[]::new));
    }

    private static MemoryLayout.PathElement[] path(String dotted) {
        return Arrays.stream(dotted.split("\\.")).map(MemoryLayout.PathElement::groupElement)
                .toArray(MemoryLayout.PathElement[]::new);
    }

    /** The VarHandle of a field, by its dotted C path; coordinates (MemorySegment, long base offset). */
    static VarHandle vh(MemoryLayout layout, String dotted) {
        return layout.varHandle(path(dotted));
    }

    /** The byte offset of a field, by its dotted C path. */
    public static long offset(MemoryLayout layout, String dotted) {
        return off(layout, dotted);
    }

    /** The byte offset of a field, by its dotted C path. */
    static long off(MemoryLayout layout, String dotted) {
        return layout.byteOffset(path(dotted));
    }
}
