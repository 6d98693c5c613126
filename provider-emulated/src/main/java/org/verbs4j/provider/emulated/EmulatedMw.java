package org.verbs4j.provider.emulated;

import org.verbs4j.Errno;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.internal.MemoryKey;

/**
 * A memory window. Its key-table entry is invalid until a bind makes it grant access to part of a
 * region; every bind of a type 1 window changes the low 8 bits of its rkey.
 */
final class EmulatedMw extends EmulatedObject implements MemoryWindow {
    final EmulatedPd pd;
    final MwType type;
    final MemoryKey key;
    /** The rkey as the application sees it (a type 1 bind changes it when posted). */
    volatile int rkey;

    EmulatedMw(EmulatedPd pd, MwType type) {
        super(pd.context);
        this.pd = pd;
        this.type = type;
        MemoryKey k = pd.device().keys.allocate(type == MwType.TYPE_1 ? MemoryKey.KIND_MW1 : MemoryKey.KIND_MW2, pd,
                this);
        if (k == null) {
            throw new VerbsException("ibv_alloc_mw", Errno.ENOMEM, "the key table is full");
        }
        this.key = k;
        this.rkey = k.key;
    }

    @Override
    public ProtectionDomain pd() {
        checkOpen();
        return pd;
    }

    @Override
    public MwType type() {
        checkOpen();
        return type;
    }

    @Override
    public int rkey() {
        checkOpen();
        return rkey;
    }

    /** Makes the window grant nothing and lets go of its region. Holds the key table's lock. */
    void unbindLocked() {
        key.valid = false;
        Object mr = key.boundMr;
        key.boundMr = null;
        if (mr instanceof EmulatedMr m) {
            m.users.decrementAndGet();
        }
    }

    @Override
    String destroyVerb() {
        return "ibv_dealloc_mw";
    }

    @Override
    void destroy() {
        synchronized (pd.device().keys) {
            unbindLocked();
        }
        pd.device().keys.release(key);
        pd.users.decrementAndGet();
    }

    @Override
    public String toString() {
        return "EmulatedMw[" + type + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
