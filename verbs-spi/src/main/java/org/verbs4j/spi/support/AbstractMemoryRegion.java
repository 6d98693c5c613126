package org.verbs4j.spi.support;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ReregFlags;
import org.verbs4j.VerbsException;

/**
 * A registered memory region, written once for every provider: what it registered (the segment, its access
 * flags, its protection domain and the address a peer uses), the getters that refuse a closed region, and the
 * removal of its segment from the domain's {@link RegionTable} when it is deregistered. A provider extends it
 * and only binds: it registers the memory ({@code ibv_reg_mr}), gives the keys the registration returned
 * ({@link #lkeyValue()}, {@link #rkeyValue()}), and deregisters it in {@link #destroy()}.
 *
 * <p>The rules it applies, besides {@link AbstractVerbsObject}'s:
 * <ul>
 *   <li>Every getter throws {@link IllegalStateException} once the region is closed; the keys of a
 *       deregistered region are never handed out again.</li>
 *   <li>The segment is removed from the {@link RegionTable} after the deregistration verb succeeded and under
 *       the close lock, so that no post checks inline data against memory that is no longer registered. A
 *       failed deregistration leaves the region open and in the table.</li>
 * </ul>
 *
 * <p>A subclass's constructor ends, as every {@link AbstractVerbsObject}'s does, with {@code dependOn(pd)} and
 * {@link #register()}, after everything that may fail.
 *
 * @see "ibv_reg_mr(3), ibv_dereg_mr(3)"
 */
public abstract class AbstractMemoryRegion extends AbstractVerbsObject implements MemoryRegion {
    /** How many times {@link #closeBeforeFree()} collects the bound windows before it gives up. */
    private static final int CLOSE_ATTEMPTS = 4;

    // What the region registers: set at registration, and again, under the close lock, by a re-registration.
    private volatile ProtectionDomain pd;
    private volatile RegionTable regions;
    /** The registered host memory; null for a region of device memory. */
    private volatile MemorySegment segment;
    /** The device memory the region lies in; null for a region of host memory. */
    private final AbstractDeviceMemory dm;
    private volatile long length;
    private volatile int access;
    private volatile long address;
    /** The windows that depend on this region: bound to it (maintained by {@link AbstractVerbsObject#dependOn}). */
    private final Set<AbstractMemoryWindow> windows = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));

    /**
     * Makes an open region over registered memory.
     *
     * @param owner the context, which deregisters the region when it closes
     * @param closeLock the lock the close holds around {@code ibv_dereg_mr}; null for the region's monitor
     * @param pd the protection domain the memory was registered in
     * @param regions the domain's table of live registered memory, from which the segment is removed at
     *     deregistration (the domain adds it after registration)
     * @param segment the registered memory, {@code length()} bytes from its address
     * @param access the {@link org.verbs4j.AccessFlags} bits it was registered with
     * @param address the region's first address as a peer names it: the segment's address, or 0 for a
     *     zero-based region where the provider implements it
     * @throws NullPointerException if {@code pd}, {@code regions} or {@code segment} is null
     */
    protected AbstractMemoryRegion(AbstractVerbsObject owner, Object closeLock, ProtectionDomain pd,
            RegionTable regions, MemorySegment segment, int access, long address) {
        super("MemoryRegion", owner, closeLock);
        this.pd = Objects.requireNonNull(pd, "pd");
        this.regions = Objects.requireNonNull(regions, "regions");
        this.segment = Objects.requireNonNull(segment, "segment");
        this.dm = null;
        this.length = segment.byteSize();
        this.access = access;
        this.address = address;
    }

    /**
     * Makes an open region with no host memory: over device memory ({@code ibv_reg_dm_mr}, zero-based) or a dma-buf
     * ({@code ibv_reg_dmabuf_mr}, from its iova). It has no segment and no entry in a {@link RegionTable}, since the
     * CPU never reads it through the library. A buffer of device memory refuses to be freed while the region is
     * open once the subclass calls {@link #dependOnMemory()}.
     *
     * @param owner the context, which deregisters the region when it closes
     * @param closeLock the lock the close holds around {@code ibv_dereg_mr}; null for the region's monitor
     * @param pd the protection domain it was registered in
     * @param dm the device memory it lies in, or null for a dma-buf
     * @param length its length, bytes
     * @param access the {@link org.verbs4j.AccessFlags} bits it was registered with
     * @param address its first address as a peer names it: 0 for device memory, the iova for a dma-buf
     * @throws NullPointerException if {@code pd} is null
     */
    protected AbstractMemoryRegion(AbstractVerbsObject owner, Object closeLock, ProtectionDomain pd,
            AbstractDeviceMemory dm, long length, int access, long address) {
        super("MemoryRegion", owner, closeLock);
        this.pd = Objects.requireNonNull(pd, "pd");
        this.regions = null;
        this.segment = null;
        this.dm = dm;
        this.length = length;
        this.access = access;
        this.address = address;
    }

    /**
     * Records that the region uses its device memory, if it lies in some: a subclass's constructor calls it with
     * {@code dependOn(pd)}, after everything that may fail.
     */
    protected final void dependOnMemory() {
        if (dm != null) {
            dependOn(dm);
        }
    }

    // ---- what a provider binds

    /** {@return the local key the registration returned ({@code ibv_mr.lkey}), read without a state check} */
    protected abstract int lkeyValue();

    /** {@return the remote key the registration returned ({@code ibv_mr.rkey}), read without a state check} */
    protected abstract int rkeyValue();

    /**
     * Re-registers the region with the device ({@code ibv_rereg_mr}), under the close lock, after every argument
     * check; on success the provider reads the keys again. This default, for a provider without the verb, answers
     * {@code EOPNOTSUPP}; a provider that overrides it overrides {@link #regionsOf} too.
     *
     * @param flags the {@link ReregFlags} bits
     * @param pd the protection domain it is to be in: the new one, or its own
     * @param segment the memory it is to register: the new one, or its own
     * @param access the access flags it is to have: the new ones, or its own
     * @return 0, or the errno the verb failed with
     */
    protected int rereg(int flags, ProtectionDomain pd, MemorySegment segment, int access) {
        return Errno.EOPNOTSUPP;
    }

    /**
     * {@return the table of live registered memory of {@code pd}, a protection domain of this provider, into which a
     * re-registered segment goes}; called only after {@link #rereg} succeeded
     *
     * @param pd the domain
     * @throws UnsupportedOperationException in this default, for a provider that does not re-register
     */
    protected RegionTable regionsOf(ProtectionDomain pd) {
        throw new UnsupportedOperationException("a provider that re-registers regions gives its PDs' region tables");
    }

    /**
     * {@return the first address a peer names a re-registered region by: 0 for a zero-based region, else the
     * segment's address}; a provider whose device ignores {@link org.verbs4j.AccessFlags#ZERO_BASED} at
     * re-registration overrides it
     *
     * @param segment the memory registered
     * @param access its access flags
     */
    protected long addressOf(MemorySegment segment, int access) {
        return firstAddress(segment, access);
    }

    /**
     * {@return the first address of a region of host memory registered with {@code access}: 0 for a
     * {@link org.verbs4j.AccessFlags#ZERO_BASED} region (the I/O virtual address {@code ibv_reg_mr_iova(3)} is given),
     * else the segment's address}; what {@link org.verbs4j.MemoryRegion#address()} answers and what a peer names
     *
     * @param segment the memory registered
     * @param access its access flags
     * @see "ibv_reg_mr(3) IBV_ACCESS_ZERO_BASED"
     */
    public static long firstAddress(MemorySegment segment, int access) {
        return (access & org.verbs4j.AccessFlags.ZERO_BASED) != 0 ? 0 : segment.address();
    }

    // ---- the object model

    @Override
    public final void reregister(int flags, ProtectionDomain newPd, MemorySegment newSegment, int newAccess) {
        checkOpen();
        ReregFlags.validate(flags);
        if (segment == null) {
            throw new IllegalArgumentException("a region of device memory or of a dma-buf cannot be re-registered:"
                    + " ibv_rereg_mr(3) takes regions of host memory");
        }
        if ((flags & ReregFlags.CHANGE_PD) != 0) {
            Objects.requireNonNull(newPd, "pd");
            sibling(newPd, AbstractVerbsObject.class, "the PD");
        }
        if ((flags & ReregFlags.CHANGE_TRANSLATION) != 0) {
            Arguments.registrable(newSegment);
        }
        if ((flags & ReregFlags.CHANGE_ACCESS) != 0) {
            org.verbs4j.AccessFlags.validate(newAccess);
        }
        synchronized (closeLock()) {
            checkOpen();
            ProtectionDomain toPd = (flags & ReregFlags.CHANGE_PD) != 0 ? newPd : pd;
            MemorySegment toSegment = (flags & ReregFlags.CHANGE_TRANSLATION) != 0 ? newSegment : segment;
            int toAccess = (flags & ReregFlags.CHANGE_ACCESS) != 0 ? newAccess : access;
            if (!windows.isEmpty()) {
                throw new VerbsException("ibv_rereg_mr", Errno.EBUSY, windows.size() + " memory window(s) bound to"
                        + " the region; the region is as it was");
            }
            int errno = rereg(flags, toPd, toSegment, toAccess);
            if (errno != 0) {
                if ((flags & ReregFlags.CHANGE_TRANSLATION) == 0) {
                    throw new VerbsException("ibv_rereg_mr", errno, "the region is as it was");
                }
                try {
                    close();
                } catch (RuntimeException e) {
                    VerbsException v = new VerbsException("ibv_rereg_mr", errno, "the device failed to move the"
                            + " region, and its deregistration failed too");
                    v.addSuppressed(e);
                    throw v;
                }
                throw new VerbsException("ibv_rereg_mr", errno, "the device failed to move the region, which may"
                        + " then name either memory: it was deregistered");
            }
            RegionTable toRegions = regionsOf(toPd);
            if (toSegment != segment || toRegions != regions) {
                regions.remove(segment);
                toRegions.add(toSegment, this);
            }
            if (toPd != pd && toPd instanceof AbstractVerbsObject p && pd instanceof AbstractVerbsObject old) {
                dependOn(p);
                dropDependency(old);
            }
            pd = toPd;
            regions = toRegions;
            segment = toSegment;
            length = toSegment.byteSize();
            access = toAccess;
            address = addressOf(toSegment, toAccess);
        }
    }

    @Override
    public final ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public final int lkey() {
        checkOpen();
        return lkeyValue();
    }

    @Override
    public final int rkey() {
        checkOpen();
        return rkeyValue();
    }

    @Override
    public final long address() {
        checkOpen();
        return address;
    }

    @Override
    public final long length() {
        checkOpen();
        return length;
    }

    @Override
    public final MemorySegment segment() {
        checkOpen();
        if (segment == null) {
            throw new UnsupportedOperationException(dm != null ? "a region of device memory has no host memory:"
                    + " copy with DeviceMemory.copyToDm and copyFromDm" : "a region of a dma-buf has no host memory");
        }
        return segment;
    }

    @Override
    public final int access() {
        checkOpen();
        return access;
    }

    /** Records that {@code w} is bound to this region ({@code bound}) or no longer is. */
    final void boundWindow(AbstractMemoryWindow w, boolean bound) {
        if (bound) {
            windows.add(w);
        } else {
            windows.remove(w);
        }
    }

    /**
     * Closes the region before its memory is freed: deallocates the windows still bound to it
     * ({@code ibv_dealloc_mw}, which ends every rkey of theirs), then deregisters it. A window bound by another
     * thread in between makes the deregistration fail with {@code EBUSY}; the windows are then collected again,
     * at most 4 times.
     *
     * @throws VerbsException if the region still cannot be deregistered (a window's or the region's destroy
     *     verb failed)
     */
    final void closeBeforeFree() {
        for (int attempt = 1; ; attempt++) {
            List<AbstractMemoryWindow> bound;
            synchronized (windows) {
                bound = new ArrayList<>(windows);
            }
            for (AbstractMemoryWindow w : bound) {
                w.close();
            }
            try {
                close();
                return;
            } catch (VerbsException e) {
                if (e.errno() != Errno.EBUSY || attempt == CLOSE_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Removes the segment from the domain's {@link RegionTable}. A subclass that overrides it to free what it
     * held calls this too.
     */
    @Override
    protected void afterDestroy() {
        if (regions != null) {
            regions.remove(segment);
        }
    }
}
