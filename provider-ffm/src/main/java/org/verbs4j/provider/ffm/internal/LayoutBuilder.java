package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds C struct layouts the way the x86-64 System V ABI lays them out: each member at its natural
 * alignment, the struct padded to its largest alignment. Members keep their C names; anonymous C
 * unions are named with the {@link #ANONYMOUS} prefix, which the layout test leaves out of the C path.
 */
public final class LayoutBuilder {
    /** Prefix of the names given to anonymous C unions. */
    public static final String ANONYMOUS = "$anon";

    private LayoutBuilder() {}

    static StructLayout struct(String name, MemoryLayout... members) {
        List<MemoryLayout> out = new ArrayList<>();
        long offset = 0;
        long align = 1;
        for (MemoryLayout m : members) {
            long a = m.byteAlignment();
            if (offset % a != 0) {
                long pad = a - offset % a;
                out.add(MemoryLayout.paddingLayout(pad));
                offset += pad;
            }
            out.add(m);
            offset += m.byteSize();
            align = Math.max(align, a);
        }
        if (offset % align != 0) {
            out.add(MemoryLayout.paddingLayout(align - offset % align));
        }
        return MemoryLayout.structLayout(out.toArray(MemoryLayout[]::new)).withName(name);
    }

    /** A union: as large as its largest member, which {@link #struct} has already padded. */
    static UnionLayout union(String name, MemoryLayout... members) {
        return MemoryLayout.unionLayout(members).withName(name);
    }

    static MemoryLayout ptr(String name) {
        return ADDRESS.withName(name);
    }

    static MemoryLayout u64(String name) {
        return JAVA_LONG.withName(name);
    }

    static MemoryLayout u32(String name) {
        return JAVA_INT.withName(name);
    }

    static MemoryLayout u16(String name) {
        return JAVA_SHORT.withName(name);
    }

    static MemoryLayout u8(String name) {
        return JAVA_BYTE.withName(name);
    }

    static MemoryLayout chars(String name, long n) {
        return MemoryLayout.sequenceLayout(n, JAVA_BYTE).withName(name);
    }

    /** {@code pthread_mutex_t} on x86-64 glibc: 40 bytes, 8-aligned. */
    static MemoryLayout mutex(String name) {
        return MemoryLayout.sequenceLayout(5, JAVA_LONG).withName(name);
    }

    /** {@code pthread_cond_t} on x86-64 glibc: 48 bytes, 8-aligned. */
    static MemoryLayout cond(String name) {
        return MemoryLayout.sequenceLayout(6, JAVA_LONG).withName(name);
    }

    /** {@code union ibv_gid}: 16 bytes, 8-aligned because of its {@code __be64} view. */
    static MemoryLayout gid(String name) {
        return MemoryLayout.sequenceLayout(2, JAVA_LONG).withName(name);
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
