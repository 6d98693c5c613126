package org.verbs4j.provider.nativecommon.internal;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;

/**
 * The native scratch memory of one verbs object (WR and SGE arrays, {@code bad_wr} words), allocated once through
 * the binding and reused for every call. Freed by {@link #free()} after the object's destroy verb; the
 * {@link Cleaner} frees it if the object is dropped unclosed. No native code keeps a pointer into it once a call
 * has returned.
 */
public final class NativeScratch {
    private static final Cleaner CLEANER = Cleaner.create();

    private final IbverbsBinding binding;
    private final Blocks blocks;
    private final Cleaner.Cleanable cleanable;

    /**
     * Opens the scratch memory of {@code owner}.
     *
     * @param binding the binding that allocates and frees it
     * @param owner the object whose memory it is; when it becomes unreachable, the memory is freed
     */
    public NativeScratch(IbverbsBinding binding, Object owner) {
        this.binding = binding;
        this.blocks = new Blocks(binding);
        this.cleanable = CLEANER.register(owner, blocks);
    }

    /**
     * Allocates zeroed memory, 8-byte aligned.
     *
     * @param bytes its size (at least 8 bytes are given)
     * @return its address
     */
    public long allocate(long bytes) {
        long address = binding.allocate(Math.max(8, bytes));
        blocks.add(address);
        return address;
    }

    /** Frees every allocation; a second call does nothing. */
    public void free() {
        cleanable.clean();
    }

    /** The addresses allocated, freed once; it holds no reference to the owner. */
    private static final class Blocks implements Runnable {
        private final IbverbsBinding binding;
        private final List<Long> addresses = new ArrayList<>();

        Blocks(IbverbsBinding binding) {
            this.binding = binding;
        }

        synchronized void add(long address) {
            addresses.add(address);
        }

        @Override
        public synchronized void run() {
            for (long a : addresses) {
                binding.free(a);
            }
            addresses.clear();
        }
    }
}
