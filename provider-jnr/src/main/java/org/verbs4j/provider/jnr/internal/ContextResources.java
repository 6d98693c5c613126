package org.verbs4j.provider.jnr.internal;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;
import org.verbs4j.provider.nativecommon.internal.NativeKind;

/**
 * Every native object and every block of native memory that belongs to one open device, by kind. It
 * holds only addresses, never the Java objects, so it can serve as the {@link java.lang.ref.Cleaner}
 * action of a context that was never closed: {@link #run()} destroys what is left in dependency order
 * (windows first, then QPs before the CQs, SRQs and PDs they use), closes the device, and only then frees
 * the memory.
 */
public final class ContextResources implements Runnable {

    private final NativeLibraries libs;
    private final long context;
    private final Map<NativeKind, LinkedHashSet<Long>> live = new EnumMap<>(NativeKind.class);
    private boolean released;

    public ContextResources(NativeLibraries libs, long context) {
        this.libs = libs;
        this.context = context;
        for (NativeKind k : NativeKind.values()) {
            live.put(k, new LinkedHashSet<>());
        }
    }

    /** Records a new native object or memory block. */
    public synchronized void add(NativeKind kind, long address) {
        live.get(kind).add(address);
    }

    /** Forgets one that was destroyed or freed by its owner. */
    public synchronized void remove(NativeKind kind, long address) {
        live.get(kind).remove(address);
    }

    /** Allocates zeroed native memory that lives until it is freed with {@link #free} or the context closes. */
    public long allocate(long bytes) {
        long a = NativeMemory.allocate(bytes);
        add(NativeKind.MEMORY, a);
        return a;
    }

    public void free(long address) {
        remove(NativeKind.MEMORY, address);
        NativeMemory.free(address);
    }

    /** Destroys everything left, closes the device, frees the memory. Runs once; later calls do nothing. */
    @Override
    public void run() {
        List<Long> memory;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            Ibverbs ib = libs.ibverbs();
            for (NativeKind k : NativeKind.values()) {
                if (k == NativeKind.MEMORY) {
                    continue;
                }
                List<Long> handles = new ArrayList<>(live.get(k));
                java.util.Collections.reverse(handles);
                for (long h : handles) {
                    destroy(ib, k, h);
                }
                live.get(k).clear();
            }
            ib.ibv_close_device(context);
            memory = new ArrayList<>(live.get(NativeKind.MEMORY));
            live.get(NativeKind.MEMORY).clear();
        }
        for (long m : memory) {
            NativeMemory.free(m);
        }
    }

    private void destroy(Ibverbs ib, NativeKind kind, long h) {
        switch (kind) {
            case QP -> ib.ibv_destroy_qp(h);
            case SRQ -> ib.ibv_destroy_srq(h);
            case AH -> ib.ibv_destroy_ah(h);
            case MW -> InlineVerbs.callP(InlineVerbs.fn(context, ibv_context.ops$dealloc_mw$off), h);
            case MR -> ib.ibv_dereg_mr(h);
            case CQ -> ib.ibv_destroy_cq(h);
            case COMP_CHANNEL -> ib.ibv_destroy_comp_channel(h);
            case PARENT_DOMAIN, PD -> ib.ibv_dealloc_pd(h);
            case TD -> {
                long fn = InlineVerbs.verbsContextOp(context, verbs_context.dealloc_td$off);
                if (fn != 0) {
                    InlineVerbs.callP(fn, h);
                }
            }
            case MEMORY -> NativeMemory.free(h);
        }
    }
}
