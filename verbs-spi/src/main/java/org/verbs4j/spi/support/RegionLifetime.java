package org.verbs4j.spi.support;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.function.Supplier;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ReregFlags;

/**
 * The rule that no registered region outlives its memory, written once for every provider: a provider's
 * {@link ProtectionDomain#registerMemory(MemorySegment, int)} applies it through {@link Arguments#registrable},
 * and {@link ProtectionDomain#registerMemory(MemorySegment, int, Arena)} is {@link #owned}.
 *
 * <p>A device reads and writes registered memory by itself, with no Java code in the way: once a region is
 * registered, nothing the library does on the CPU can stop a remote WRITE from landing in it. So the memory
 * must not be freed while the region is open. The public FFM API tells only two things about a segment's
 * scope: whether it is still alive, and whether it is the global scope (which is never freed). It does not
 * tell a closeable arena ({@link Arena#ofConfined()}, {@link Arena#ofShared()}) from an automatic one, and it
 * gives no way to hold a scope open. Hence:
 * <ul>
 *   <li>a plain registration takes only memory of the global scope ({@link Arena#global()}, or a segment
 *       made from a raw address): memory that cannot be freed under the region;</li>
 *   <li>any other memory is registered with the arena that frees it, which then deregisters the region
 *       before it frees the memory (a cleanup added to the arena runs before its earlier ones).</li>
 * </ul>
 *
 * @see "ibv_reg_mr(3), ibv_dereg_mr(3)"
 */
public final class RegionLifetime {
    /** The scope of the owner arena whose {@link #owned} registration this thread is making, or null. */
    private static final ThreadLocal<MemorySegment.Scope> OWNER_SCOPE = new ThreadLocal<>();

    private RegionLifetime() {}

    /**
     * Checks that {@code segment} cannot be freed while a region over it is open: it is of the global scope, or
     * this thread is registering it through {@link #owned} with the arena that frees it. Called by
     * {@link Arguments#registrable}, after its own checks.
     *
     * @param segment a native, non-empty segment whose scope is alive
     * @throws IllegalArgumentException otherwise; the message names the fix
     */
    static void checkCannotBeFreed(MemorySegment segment) {
        MemorySegment.Scope scope = segment.scope();
        if (!scope.equals(Arena.global().scope()) && !scope.equals(OWNER_SCOPE.get())) {
            throw new IllegalArgumentException("segment: its arena can be closed while the region is open, and the"
                    + " device would then read and write freed memory; register it with"
                    + " registerMemory(segment, access, arena), which deregisters the region before the arena"
                    + " frees the memory (only memory that is never freed, from Arena.global(), can be registered"
                    + " without its arena)");
        }
    }

    /**
     * {@link ProtectionDomain#registerMemory(MemorySegment, int, Arena)}: registers memory of {@code owner}
     * through the provider's {@link ProtectionDomain#registerMemory(MemorySegment, int)}, and makes
     * {@code owner} close the region before it frees the memory: the cleanup added to the arena runs before
     * the arena's earlier ones, which free its allocations. The cleanup deallocates the windows still bound to
     * the region first.
     *
     * @param pd the protection domain registering
     * @param segment the memory, allocated from {@code owner}
     * @param access the {@link org.verbs4j.AccessFlags} bits
     * @param owner the arena that frees {@code segment}
     * @return the region
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code segment} does not belong to {@code owner}, or as the plain
     *     registration
     * @throws IllegalStateException if {@code pd} is closed, {@code owner} is closed, or {@code owner} is
     *     confined to another thread
     */
    public static MemoryRegion owned(ProtectionDomain pd, MemorySegment segment, int access, Arena owner) {
        if (pd.isClosed()) {
            throw new IllegalStateException("the protection domain is closed");
        }
        checkAllocatedFrom(segment, owner);
        MemoryRegion mr = registeringWith(owner, () -> pd.registerMemory(segment, access));
        closeBeforeFree(mr, segment, owner);
        return mr;
    }

    /**
     * {@link MemoryRegion#reregister(int, ProtectionDomain, MemorySegment, int, Arena)}: re-registers onto memory of
     * {@code owner} through the region's plain {@link MemoryRegion#reregister(int, ProtectionDomain, MemorySegment,
     * int)}, and makes {@code owner} close the region before it frees the memory, as {@link #owned} does.
     *
     * @param mr the region
     * @param flags the {@link ReregFlags} bits, {@link ReregFlags#CHANGE_TRANSLATION} among them
     * @param pd with {@link ReregFlags#CHANGE_PD}, the new protection domain
     * @param segment the new memory, allocated from {@code owner}
     * @param access with {@link ReregFlags#CHANGE_ACCESS}, the new access flags
     * @param owner the arena that frees {@code segment}
     * @throws NullPointerException if {@code segment} or {@code owner} is null
     * @throws IllegalArgumentException if {@code flags} lacks {@link ReregFlags#CHANGE_TRANSLATION}, or
     *     {@code segment} does not belong to {@code owner}
     * @throws IllegalStateException if {@code mr} is closed
     */
    public static void reowned(MemoryRegion mr, int flags, ProtectionDomain pd, MemorySegment segment, int access,
            Arena owner) {
        if (mr.isClosed()) {
            throw new IllegalStateException("this MemoryRegion is closed");
        }
        checkAllocatedFrom(segment, owner);
        if ((ReregFlags.validate(flags) & ReregFlags.CHANGE_TRANSLATION) == 0) {
            throw new IllegalArgumentException("flags: an arena owns new memory only with CHANGE_TRANSLATION");
        }
        registeringWith(owner, () -> {
            mr.reregister(flags, pd, segment, access);
            return mr;
        });
        closeBeforeFree(mr, segment, owner);
    }

    private static void checkAllocatedFrom(MemorySegment segment, Arena owner) {
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(owner, "owner");
        if (!segment.scope().equals(owner.scope())) {
            throw new IllegalArgumentException("segment: it was not allocated from owner");
        }
    }

    /** Runs a registration of {@code owner}'s memory, which {@link #checkCannotBeFreed} then accepts. */
    private static MemoryRegion registeringWith(Arena owner, Supplier<MemoryRegion> registration) {
        OWNER_SCOPE.set(owner.scope());
        try {
            return registration.get();
        } finally {
            OWNER_SCOPE.remove();
        }
    }

    /**
     * Makes {@code owner} close {@code mr} before it frees {@code segment}; closes {@code mr} if it cannot.
     */
    @SuppressWarnings("restricted")
    private static void closeBeforeFree(MemoryRegion mr, MemorySegment segment, Arena owner) {
        try {
            // reinterpret with an arena and a cleanup registers the cleanup with that arena (restricted, but
            // it creates no access to memory: the returned segment is dropped).
            segment.reinterpret(owner, ignored -> closeBeforeFree(mr));
        } catch (RuntimeException e) {
            mr.close();
            throw e;
        }
    }

    private static void closeBeforeFree(MemoryRegion mr) {
        if (mr instanceof AbstractMemoryRegion r) {
            r.closeBeforeFree();
        } else {
            mr.close();
        }
    }
}
