package org.verbs4j.provider.emulated.verbs;

import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.MwType;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.engine.MemoryKey;
import org.verbs4j.provider.emulated.engine.SendWqe;
import org.verbs4j.spi.support.AbstractMemoryWindow;

/**
 * A memory window. Its key-table entry is invalid until a bind makes it grant access to part of a
 * region; every bind of a type 1 window changes the low 8 bits of its rkey.
 */
public final class EmulatedMemoryWindow extends AbstractMemoryWindow {
    final EmulatedContext context;
    // Unchecked copies of what the object model holds, read by the engine, which checks isClosed() itself.
    final EmulatedProtectionDomain pd;
    final MwType type;
    final MemoryKey key;
    /** The rkey as the application sees it (a type 1 bind changes it when posted). */
    volatile int rkey;

    EmulatedMemoryWindow(EmulatedProtectionDomain pd, MwType type) {
        super(pd.context, pd.context.lock, pd, type);
        this.context = pd.context;
        this.pd = pd;
        this.type = type;
        MemoryKey k = pd.device().keys.allocate(type == MwType.TYPE_1 ? MemoryKey.KIND_MW1 : MemoryKey.KIND_MW2, pd,
                this);
        if (k == null) {
            throw new VerbsException("ibv_alloc_mw", Errno.ENOMEM, "the key table is full");
        }
        this.key = k;
        this.rkey = k.key;
        dependOn(pd);
        register();
    }

    @Override
    protected int rkeyValue() {
        return rkey;
    }

    /** Makes the window grant nothing and lets go of its region. Holds the key table's lock. */
    void unbindLocked() {
        key.valid = false;
        Object mr = key.boundMr;
        key.boundMr = null;
        if (mr instanceof EmulatedMemoryRegion m) {
            dropDependency(m);
        }
    }

    /**
     * Executes a BIND_MW WQE on this window, posted on QP {@code qpn} of {@code qpPd}: checks the window, the
     * region and the access, then makes the key grant the range. False is a bind error (MW_BIND_ERR).
     */
    boolean bind(SendWqe w, EmulatedProtectionDomain qpPd, int qpn) {
        EmulatedMemoryRegion mr = w.bindMr instanceof EmulatedMemoryRegion m ? m : null;
        if (isClosed() || pd != qpPd || mr == null || mr.isClosed() || mr.pd != qpPd
                || (mr.access & AccessFlags.MW_BIND) == 0) {
            return false;
        }
        int access = w.bindAccess;
        if ((access & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0
                && (mr.access & AccessFlags.LOCAL_WRITE) == 0) {
            return false;
        }
        boolean type2 = type == MwType.TYPE_2;
        MemoryKey k = key;
        boolean bound = false;
        synchronized (pd.device().keys) {
            if (!(w.bindLength > 0 && mr.key.offsetOf(w.bindAddr, w.bindLength) < 0 || type2 && k.valid
                    || type2 && (w.bindRkey >>> 8) != k.index)) {
                bound = true;
                unbindLocked();
                k.key = w.bindRkey;
                k.segment = mr.segment;
                boolean zeroBased = (access & AccessFlags.ZERO_BASED) != 0;
                k.segmentBase = zeroBased ? mr.address - w.bindAddr : mr.address;
                k.start = zeroBased ? 0 : w.bindAddr;
                k.length = w.bindLength;
                k.access = access;
                k.boundQpn = qpn;
                if (type2 || w.bindLength > 0) {
                    k.boundMr = mr;
                    dependOn(mr);
                    k.valid = true;
                }
            }
        }
        // Completions are written outside the key table's monitor, which receive paths take after their queue's.
        if (bound && type2) {
            rkey = w.bindRkey;
        }
        return bound;
    }

    @Override
    protected int destroy() {
        synchronized (pd.device().keys) {
            unbindLocked();
        }
        pd.device().keys.release(key);
        return 0;
    }

    @Override
    public String toString() {
        return "EmulatedMemoryWindow[" + type + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
