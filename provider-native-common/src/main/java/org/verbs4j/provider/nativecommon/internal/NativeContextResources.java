package org.verbs4j.provider.nativecommon.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.verbs4j.Gid;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.ibv_context;
import org.verbs4j.provider.nativecommon.internal.ContextStructs.verbs_context;

/**
 * Every native object and every block of native memory that belongs to one open device, by kind. It holds only
 * addresses, never the Java objects, so it can serve as the {@link java.lang.ref.Cleaner} action of a context
 * that was never closed: {@link #run()} destroys what is left in {@link NativeKind} order (windows first, then
 * QPs before the CQs, SRQs, XRC domains and PDs they use), closes the device, and only then frees the memory. A
 * context that is closed has closed its objects first, so then only the device and the memory are left. A QP still
 * attached to multicast groups is detached from them first: the kernel refuses to destroy it otherwise
 * ({@code EBUSY}), and the user-space queues the provider library frees only on a successful destroy would stay
 * mapped.
 */
public final class NativeContextResources implements Runnable {
    /** {@code ibv_context.abi_compat} of a context that has a {@code struct verbs_context} in front of it. */
    private static final long VERBS_ABI_IS_EXTENDED = -1L;

    private final IbverbsBinding binding;
    private final long context;
    private final Map<NativeKind, LinkedHashSet<Long>> live = new EnumMap<>(NativeKind.class);
    /** The multicast groups each live QP is attached to, by the QP's address. */
    private final Map<Long, Set<Attachment>> multicast = new HashMap<>();
    private boolean released;

    NativeContextResources(IbverbsBinding binding, long context) {
        this.binding = binding;
        this.context = context;
        for (NativeKind k : NativeKind.values()) {
            live.put(k, new LinkedHashSet<>());
        }
    }

    /**
     * The op of {@code struct verbs_context} at {@code offset}, as {@code verbs_get_ctx_op} finds it.
     *
     * @param binding the binding that reads the fields
     * @param context the {@code struct ibv_context *}
     * @param offset the op's offset in {@code struct verbs_context}
     * @return its address; 0 if the context is not extended, its {@code sz} does not cover the op, or it is not set
     */
    public static long verbsContextOp(IbverbsBinding binding, long context, long offset) {
        if (binding.getLong(context + ibv_context.abi_compat$off) != VERBS_ABI_IS_EXTENDED) {
            return 0;
        }
        long vctx = context - verbs_context.context$off;
        if (binding.getLong(vctx + verbs_context.sz$off) < verbs_context.SIZEOF - offset) {
            return 0;
        }
        return binding.getLong(vctx + offset);
    }

    /** Records a new native object or memory block. */
    synchronized void add(NativeKind kind, long address) {
        live.get(kind).add(address);
    }

    /** Forgets one that was destroyed or freed by its owner. */
    synchronized void remove(NativeKind kind, long address) {
        live.get(kind).remove(address);
        if (kind == NativeKind.QP) {
            multicast.remove(address);
        }
    }

    /** A group a QP is attached to. */
    private record Attachment(Gid gid, int lid) {}

    /** Records an attach or a detach of a live QP. */
    synchronized void multicast(long qp, Gid gid, int lid, boolean attached) {
        if (attached) {
            multicast.computeIfAbsent(qp, k -> new LinkedHashSet<>()).add(new Attachment(gid, lid));
            return;
        }
        Set<Attachment> groups = multicast.get(qp);
        if (groups != null && groups.remove(new Attachment(gid, lid)) && groups.isEmpty()) {
            multicast.remove(qp);
        }
    }

    /** Detaches a QP from every group it is still attached to, before its destroy verb. */
    private void detachAll(long qp) {
        Set<Attachment> groups = multicast.remove(qp);
        if (groups == null) {
            return;
        }
        long raw = binding.allocate(16);
        try {
            for (Attachment a : groups) {
                binding.putBytes(raw, a.gid().toBytes());
                binding.detachMcast(qp, raw, a.lid());
            }
        } finally {
            binding.free(raw);
        }
    }

    /** Allocates zeroed native memory that lives until it is freed with {@link #free} or the context closes. */
    long allocate(long bytes) {
        long a = binding.allocate(bytes);
        add(NativeKind.MEMORY, a);
        return a;
    }

    void free(long address) {
        remove(NativeKind.MEMORY, address);
        binding.free(address);
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
            for (NativeKind k : NativeKind.values()) {
                if (k == NativeKind.MEMORY) {
                    continue;
                }
                List<Long> handles = new ArrayList<>(live.get(k));
                Collections.reverse(handles);
                for (long h : handles) {
                    if (k == NativeKind.QP) {
                        detachAll(h);
                    }
                    destroy(k, h);
                }
                live.get(k).clear();
            }
            binding.closeDevice(context);
            memory = new ArrayList<>(live.get(NativeKind.MEMORY));
            live.get(NativeKind.MEMORY).clear();
        }
        for (long m : memory) {
            binding.free(m);
        }
    }

    private void destroy(NativeKind kind, long h) {
        switch (kind) {
            case QP -> binding.destroyQp(h);
            case SRQ -> binding.destroySrq(h);
            case XRCD -> {
                long fn = verbsContextOp(binding, context, DeclaredOps.member("close_xrcd").offset());
                if (fn != 0) {
                    binding.libibverbsOps().close_xrcd(fn, h);
                }
            }
            case AH -> binding.destroyAh(h);
            case MW -> binding.libibverbsOps().dealloc_mw(
                    binding.getLong(context + DeclaredOps.member("dealloc_mw").offset()), h);
            case MR -> binding.deregMr(h);
            case DM -> {
                long fn = verbsContextOp(binding, context, DeclaredOps.member("free_dm").offset());
                if (fn != 0) {
                    binding.libibverbsOps().free_dm(fn, h);
                }
            }
            case CQ -> binding.destroyCq(h);
            case COMP_CHANNEL -> binding.destroyCompChannel(h);
            case PARENT_DOMAIN, PD -> binding.deallocPd(h);
            case TD -> {
                long fn = verbsContextOp(binding, context, DeclaredOps.member("dealloc_td").offset());
                if (fn != 0) {
                    binding.libibverbsOps().dealloc_td(fn, h);
                }
            }
            case MEMORY -> binding.free(h);
        }
    }
}
