package org.verbs4j.provider.nativecommon.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A C type as the x86-64 System V ABI (LP64) lays it out: a scalar, a pointer, a fixed array, a struct or a
 * union, with the C name of the member it describes. Structs place each member at its natural alignment and
 * pad to their largest alignment, as gcc does. The FFM binding turns a description into a
 * {@code MemoryLayout}; the JNR binding reads the byte offsets. Nothing here touches native memory.
 *
 * <p>Anonymous C unions and structs are named with the {@link #ANONYMOUS} prefix: a dotted path names them
 * (so every member has one path), and {@link #cPath} leaves them out, as C's {@code offsetof} does.
 */
public final class CLayout {
    /** Prefix of the names given to anonymous C unions and structs. */
    public static final String ANONYMOUS = "$anon";

    /** What a layout is. */
    public enum Kind {
        /** An integer of 1, 2, 4 or 8 bytes. */
        SCALAR,
        /** A pointer: 8 bytes. */
        POINTER,
        /** {@code count} elements of one layout. */
        ARRAY,
        /** Members one after another. */
        STRUCT,
        /** Members at offset 0. */
        UNION
    }

    /** A member of a struct or union and its byte offset in it. */
    public record Member(CLayout layout, long offset) {}

    private final String name;
    private final Kind kind;
    private final long size;
    private final long alignment;
    private final List<Member> members;
    private final CLayout element;
    private final long count;

    private CLayout(String name, Kind kind, long size, long alignment, List<Member> members, CLayout element,
                    long count) {
        this.name = Objects.requireNonNull(name);
        this.kind = kind;
        this.size = size;
        this.alignment = alignment;
        this.members = members;
        this.element = element;
        this.count = count;
    }

    /** An unsigned 8-bit integer. */
    public static CLayout u8(String name) {
        return scalar(name, 1);
    }

    /** A 16-bit integer. */
    public static CLayout u16(String name) {
        return scalar(name, 2);
    }

    /** A 32-bit integer (an {@code int}, an {@code enum} or a {@code uint32_t}). */
    public static CLayout u32(String name) {
        return scalar(name, 4);
    }

    /** A 64-bit integer. */
    public static CLayout u64(String name) {
        return scalar(name, 8);
    }

    /** A pointer, data or function. */
    public static CLayout ptr(String name) {
        return new CLayout(name, Kind.POINTER, 8, 8, List.of(), null, 0);
    }

    /** A {@code char[n]}. */
    public static CLayout chars(String name, long n) {
        return array(name, u8("char"), n);
    }

    /** {@code n} elements of {@code element}. */
    public static CLayout array(String name, CLayout element, long n) {
        return new CLayout(name, Kind.ARRAY, element.size * n, element.alignment, List.of(), element, n);
    }

    /** {@code pthread_mutex_t} on x86-64 glibc: 40 bytes, 8-aligned. */
    public static CLayout mutex(String name) {
        return array(name, u64("__align"), 5);
    }

    /** {@code pthread_cond_t} on x86-64 glibc: 48 bytes, 8-aligned. */
    public static CLayout cond(String name) {
        return array(name, u64("__align"), 6);
    }

    /** {@code union ibv_gid}: 16 bytes, 8-aligned because of its {@code __be64} view. */
    public static CLayout gid(String name) {
        return array(name, u64("raw"), 2);
    }

    private static CLayout scalar(String name, long bytes) {
        return new CLayout(name, Kind.SCALAR, bytes, bytes, List.of(), null, 0);
    }

    /** A struct: each member at its natural alignment, the whole padded to the largest alignment. */
    public static CLayout struct(String name, CLayout... members) {
        List<Member> placed = new ArrayList<>();
        long offset = 0;
        long align = 1;
        for (CLayout m : members) {
            offset = alignUp(offset, m.alignment);
            placed.add(new Member(m, offset));
            offset += m.size;
            align = Math.max(align, m.alignment);
        }
        return new CLayout(name, Kind.STRUCT, alignUp(offset, align), align, List.copyOf(placed), null, 0);
    }

    /** A union: every member at offset 0, as large as its largest member rounded to the largest alignment. */
    public static CLayout union(String name, CLayout... members) {
        List<Member> placed = new ArrayList<>();
        long size = 0;
        long align = 1;
        for (CLayout m : members) {
            placed.add(new Member(m, 0));
            size = Math.max(size, m.size);
            align = Math.max(align, m.alignment);
        }
        return new CLayout(name, Kind.UNION, alignUp(size, align), align, List.copyOf(placed), null, 0);
    }

    private static long alignUp(long offset, long align) {
        return (offset + align - 1) / align * align;
    }

    /** The same layout as the member called {@code newName}. */
    public CLayout withName(String newName) {
        return new CLayout(newName, kind, size, alignment, members, element, count);
    }

    /** The C name of the member (or struct tag) this layout describes. */
    public String name() {
        return name;
    }

    /** What it is. */
    public Kind kind() {
        return kind;
    }

    /** {@code sizeof}, bytes. */
    public long size() {
        return size;
    }

    /** {@code _Alignof}, bytes. */
    public long alignment() {
        return alignment;
    }

    /** The members of a struct or union with their offsets; empty for the other kinds. */
    public List<Member> members() {
        return members;
    }

    /** The element of an array; {@code null} for the other kinds. */
    public CLayout element() {
        return element;
    }

    /** The element count of an array; 0 for the other kinds. */
    public long count() {
        return count;
    }

    /**
     * The byte offset of a member, by its dotted path ({@code "wr.rdma.rkey"}, anonymous members named).
     *
     * @throws IllegalArgumentException if no member has that path
     */
    public long offset(String dotted) {
        return find(dotted).offset();
    }

    /**
     * The layout of a member, by its dotted path.
     *
     * @throws IllegalArgumentException if no member has that path
     */
    public CLayout member(String dotted) {
        return find(dotted).layout();
    }

    private Member find(String dotted) {
        CLayout at = this;
        long offset = 0;
        for (String part : dotted.split("\\.")) {
            Member m = at.members.stream().filter(x -> x.layout().name.equals(part)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(name + " has no member " + dotted));
            offset += m.offset();
            at = m.layout();
        }
        return new Member(at, offset);
    }

    /** A dotted path as C's {@code offsetof} takes it: the anonymous members left out. */
    public static String cPath(String dotted) {
        StringBuilder b = new StringBuilder();
        for (String part : dotted.split("\\.")) {
            if (!part.startsWith(ANONYMOUS)) {
                b.append(b.isEmpty() ? "" : ".").append(part);
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return kind + " " + name + " (" + size + " bytes)";
    }
}
