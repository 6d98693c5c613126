package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.ReregFlags;

import org.verbs4j.provider.nativecommon.IbverbsDeviceFacts;

/**
 * What the shared capability probe reads of a native context beyond the API, for either provider.
 *
 * @param context the open context
 * @param providerName the provider's name, {@code "ffm"} or {@code "jnr"}
 */
public record NativeDeviceFacts(NativeContextSupport context, String providerName) implements IbverbsDeviceFacts {
    @Override
    public boolean hasContextOp(String name) {
        return context.verbsContextOp(ContextStructs.verbs_context.DESC.offset(name)) != 0;
    }

    @Override
    public boolean reregisters() {
        IbverbsBinding b = context.binding();
        long memory = b.allocate(64);
        try {
            long pd = b.allocPd(context.contextHandle());
            if (pd <= 0) {
                return false;
            }
            try {
                long mr = b.regMr(pd, memory, 64, memory, AccessFlags.LOCAL_WRITE);
                if (mr <= 0) {
                    return false;
                }
                try {
                    return b.libibverbs().ibv_rereg_mr(mr, ReregFlags.CHANGE_ACCESS, pd, 0, 0,
                            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ) == 0;
                } finally {
                    b.deregMr(mr);
                }
            } finally {
                b.deallocPd(pd);
            }
        } finally {
            b.free(memory);
        }
    }

    @Override
    public boolean registersDmabuf() {
        IbverbsBinding b = context.binding();
        long pd = b.allocPd(context.contextHandle());
        if (pd <= 0) {
            return false;
        }
        try {
            long mr = b.libibverbs().ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, AccessFlags.LOCAL_WRITE);
            if (mr > 0) {
                b.deregMr(mr);
                return true;
            }
            return mr != -Errno.EOPNOTSUPP;
        } finally {
            b.deallocPd(pd);
        }
    }
}
