package org.verbs4j.spi.support;

import java.util.Objects;
import org.verbs4j.AddressHandle;
import org.verbs4j.PreparedSends;
import org.verbs4j.QpType;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WrOpcode;

/**
 * The shared part of every provider's {@link PreparedSends}: the owner thread, the argument checks of each
 * setter, the closed state, and a mirror of every slot as a {@link SendWr} made once (with its own
 * {@link Sge}s), which is what the post's checks read. A provider binds the storage: it overrides the
 * {@code *Set} hooks to store into its native slot at once, and {@link #postSlots} to post.
 *
 * <p>Each slot is either <em>clean</em> (the provider's slot holds what the mirror says, and the post's checks
 * passed for it), <em>dirty</em> (a setter changed its shape: opcode, {@code num_sge}, a flag other than
 * SIGNALED, SOLICITED and FENCE, a UD destination or XRC SRQ number, or a field the provider did not store at
 * once), or
 * <em>rechecked</em> (clean, but with something that can change after it was set: inline data, whose regions
 * may be deregistered, or a UD address handle, which may be closed). A post checks, and rewrites from the
 * mirror, only the slots {@link #mustCheck} names, so a post of clean slots has nothing to check or copy.
 */
public abstract class AbstractPreparedSends implements PreparedSends {
    /** The largest capacity. */
    public static final int MAX_CAPACITY = 65536;

    private static final byte CLEAN = 0;
    private static final byte DIRTY = 1;
    private static final byte RECHECK = 2;
    /** The flags that change neither what the device reads nor which rules apply. */
    private static final int PLAIN_FLAGS = SendFlags.SIGNALED | SendFlags.SOLICITED | SendFlags.FENCE;

    private final SendWr[] slots;
    private final byte[] state;
    private final int capacity;
    private final int maxSge;
    private final boolean ud;
    private final Thread owner;
    /**
     * Set by {@link #close()}. Not volatile: it is read by every setter, and the owner sees its own close; a
     * close by another thread is seen by the post under the provider's send lock, which the release takes
     * after setting it, and a provider's slot memory refuses a setter once released.
     */
    private boolean closed;

    /**
     * Makes the mirror: {@code capacity} SENDs with no SGE.
     *
     * @param type the QP's type
     * @param capacity the number of slots, 1 to {@value #MAX_CAPACITY}
     * @param maxSge the SGEs each slot has room for; at least 1 is given
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    protected AbstractPreparedSends(QpType type, int capacity, int maxSge) {
        this.capacity = checkCapacity(capacity);
        this.maxSge = Math.max(1, maxSge);
        this.ud = type == QpType.UD;
        this.owner = Thread.currentThread();
        this.slots = new SendWr[capacity];
        this.state = new byte[capacity];
        for (int i = 0; i < capacity; i++) {
            Sge[] sges = new Sge[this.maxSge];
            for (int k = 0; k < sges.length; k++) {
                sges[k] = new Sge();
            }
            slots[i] = new SendWr().sgList(sges, 0);
            state[i] = DIRTY;
        }
    }

    /**
     * Checks a capacity for {@link org.verbs4j.QueuePair#prepareSends(int)}.
     *
     * @param capacity the number of slots asked for
     * @return {@code capacity}
     * @throws IllegalArgumentException if it is outside {@code [1, MAX_CAPACITY]}
     */
    public static int checkCapacity(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be 1.." + MAX_CAPACITY + ", was " + capacity);
        }
        return capacity;
    }

    @Override
    public final int capacity() {
        return capacity;
    }

    @Override
    public final int maxSge() {
        return maxSge;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final PreparedSends wrId(int slot, long wrId) {
        slot(slot).wrId(wrId);
        wrIdSet(slot, wrId);
        return this;
    }

    @Override
    public final PreparedSends opcode(int slot, WrOpcode opcode) {
        Objects.requireNonNull(opcode, "opcode");
        if (opcode == WrOpcode.BIND_MW || opcode == WrOpcode.TSO) {
            throw new IllegalArgumentException(opcode + " WRs hold objects; post them with QueuePair.postSend");
        }
        SendWr w = slot(slot);
        if (w.opcode() != opcode) {
            w.opcode(opcode);
            state[slot] = DIRTY;
        }
        return this;
    }

    @Override
    public final PreparedSends sendFlags(int slot, int flags) {
        SendWr w = slot(slot);
        int old = w.sendFlags();
        w.sendFlags(flags);
        if (((old ^ flags) & ~PLAIN_FLAGS) != 0) {
            state[slot] = DIRTY;
        } else {
            flagsSet(slot, flags);
        }
        return this;
    }

    @Override
    public final PreparedSends immData(int slot, int imm) {
        slot(slot).immData(imm);
        remoteSet(slot);
        return this;
    }

    @Override
    public final PreparedSends invalidateRkey(int slot, int rkey) {
        slot(slot).invalidateRkey(rkey);
        remoteSet(slot);
        return this;
    }

    @Override
    public final PreparedSends sge(int slot, int index, long addr, int length, int lkey) {
        SendWr w = slot(slot);
        w.sgList()[Objects.checkIndex(index, maxSge)].set(addr, length, lkey);
        sgeSet(slot, index, addr, length, lkey);
        return this;
    }

    @Override
    public final PreparedSends numSge(int slot, int count) {
        SendWr w = slot(slot);
        if (count < 0 || count > maxSge) {
            throw new IllegalArgumentException("numSge must be 0.." + maxSge + " (the slot's room), was " + count);
        }
        if (w.numSge() != count) {
            w.sgList(w.sgList(), count);
            state[slot] = DIRTY;
        }
        return this;
    }

    @Override
    public final PreparedSends rdma(int slot, long remoteAddr, int rkey) {
        slot(slot).rdma(remoteAddr, rkey);
        remoteSet(slot);
        return this;
    }

    @Override
    public final PreparedSends atomic(int slot, long remoteAddr, long compareAdd, long swap, int rkey) {
        slot(slot).atomic(remoteAddr, compareAdd, swap, rkey);
        remoteSet(slot);
        return this;
    }

    @Override
    public final PreparedSends ud(int slot, AddressHandle ah, int remoteQpn, int remoteQkey) {
        slot(slot).ud(ah, remoteQpn, remoteQkey);
        state[slot] = DIRTY;
        return this;
    }

    @Override
    public final PreparedSends remoteSrqn(int slot, int srqn) {
        slot(slot).remoteSrqn(srqn);
        state[slot] = DIRTY;
        return this;
    }

    @Override
    public final PreparedSends set(int slot, SendWr wr) {
        Objects.requireNonNull(wr, "wr");
        SendWr w = slot(slot);
        int num = wr.numSge();
        if (num > maxSge) {
            throw new IllegalArgumentException(num + " SGEs, but a slot has room for " + maxSge);
        }
        Arguments.sges(wr.sgList(), num, "sgList");
        opcode(slot, wr.opcode());
        Sge[] mine = w.sgList();
        for (int k = 0; k < num; k++) {
            Sge g = wr.sgList()[k];
            mine[k].set(g.addr(), g.length(), g.lkey());
        }
        w.sgList(mine, num).wrId(wr.wrId()).sendFlags(wr.sendFlags()).immData(wr.immData())
                .invalidateRkey(wr.invalidateRkey()).atomic(wr.remoteAddr(), wr.compareAdd(), wr.swap(), wr.rkey())
                .ud(wr.ah(), wr.remoteQpn(), wr.remoteQkey()).remoteSrqn(wr.remoteSrqn());
        state[slot] = DIRTY;
        return this;
    }

    @Override
    public final void post(int n) {
        checkOwner();
        if (n < 1 || n > capacity) {
            throw new IllegalArgumentException("n must be 1.." + capacity + " (the capacity), was " + n);
        }
        checkOpen();
        postSlots(n);
    }

    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            release();
        }
    }

    /**
     * Posts slots 0 to {@code n - 1} with the rules of {@code ibv_post_send(3)}; called by the owner thread
     * with a valid {@code n}, the array open. A provider takes the QP's send lock and checks that the array is
     * still open under it, since {@link #release()} may run in another thread.
     *
     * @param n the number of slots, 1 to the capacity
     */
    protected abstract void postSlots(int n);

    /** Releases the provider's slot memory; called once, by {@link #close()}. Does nothing by default. */
    protected void release() {
    }

    /**
     * The slot's {@code wrId} was set; the slot is in range and the caller is the owner.
     *
     * @param slot the slot
     * @param wrId its new value
     */
    protected void wrIdSet(int slot, long wrId) {
    }

    /**
     * The slot's flags changed only in SIGNALED, SOLICITED or FENCE.
     *
     * @param slot the slot
     * @param flags the new flags
     */
    protected void flagsSet(int slot, int flags) {
    }

    /**
     * SGE {@code index} of the slot was set (the index is within the slot's room).
     *
     * @param slot the slot
     * @param index the SGE's index
     * @param addr its address
     * @param length its length in bytes
     * @param lkey its lkey
     */
    protected void sgeSet(int slot, int index, long addr, int length, int lkey) {
    }

    /**
     * A field the slot's opcode may read (remote address, rkey, atomic operands, immediate data, invalidated
     * rkey) was set in the mirror: store it at once, or {@link #markDirty} the slot.
     *
     * @param slot the slot
     */
    protected void remoteSet(int slot) {
    }

    /**
     * {@return the slot's mirror, for the post's checks and rewrites}
     * @param slot the slot, in range
     */
    protected final SendWr slotWr(int slot) {
        return slots[slot];
    }

    /**
     * {@return whether the post must check the slot and write it from its mirror}
     * @param slot the slot, in range
     */
    protected final boolean mustCheck(int slot) {
        return state[slot] != CLEAN;
    }

    /**
     * The post checked the slot and wrote it from its mirror: it is clean, or rechecked at every post when it
     * holds inline data or a UD destination.
     *
     * @param slot the slot
     */
    protected final void checked(int slot) {
        state[slot] = ud || (slots[slot].sendFlags() & SendFlags.INLINE) != 0 ? RECHECK : CLEAN;
    }

    /**
     * The provider did not store a change of the slot: the next post writes it from its mirror.
     *
     * @param slot the slot
     */
    protected final void markDirty(int slot) {
        state[slot] = DIRTY;
    }

    /**
     * Throws unless the array is open; a provider calls it again under its send lock.
     *
     * @throws IllegalStateException if the array is closed
     */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the PreparedSends is closed");
        }
    }

    private SendWr slot(int slot) {
        checkOwner();
        checkOpen();
        return slots[Objects.checkIndex(slot, capacity)];
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a PreparedSends is used by the thread that made it (\""
                    + owner.getName() + "\"), not by \"" + Thread.currentThread().getName() + "\"");
        }
    }
}
