package org.verbs4j.provider.nativecommon.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Native memory for the arguments of one control-path call (an attribute struct, an out word), allocated through
 * the binding and freed when the try-with-resources block that opened it ends. Confined to the calling thread.
 */
final class TempMemory implements AutoCloseable {
    private final IbverbsBinding binding;
    private final List<Long> addresses = new ArrayList<>(2);

    TempMemory(IbverbsBinding binding) {
        this.binding = binding;
    }

    /**
     * Allocates zeroed memory, 8-byte aligned, until {@link #close()}.
     *
     * @param bytes its size
     * @return its address
     */
    long allocate(long bytes) {
        long address = binding.allocate(Math.max(8, bytes));
        addresses.add(address);
        return address;
    }

    @Override
    public void close() {
        for (long a : addresses) {
            binding.free(a);
        }
        addresses.clear();
    }
}
