package org.verbs4j.provider.ffm.internal;

import static org.verbs4j.provider.ffm.internal.LayoutBuilder.layout;
import static org.verbs4j.provider.ffm.internal.LayoutBuilder.vh;

import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import org.verbs4j.provider.nativecommon.internal.ContextStructs;
import org.verbs4j.provider.nativecommon.internal.PosixStructs;
import org.verbs4j.provider.nativecommon.internal.QpStructs;

/**
 * The libibverbs structs the provider reads and writes, as FFM layouts built from the one layout description
 * of {@code provider-native-common} ({@code org.verbs4j.provider.nativecommon.internal.*Structs}, checked
 * there against {@code infiniband/verbs.h} with gcc). Byte offsets come from that description too
 * ({@code QpStructs.ibv_send_wr.wr_id$off}); this class adds what only FFM has.
 *
 * <p>Each nested class holds one struct's {@code LAYOUT} and the VarHandles ({@code field$vh}, coordinates:
 * segment and base offset) of the fields used. Only what FFM code reads is here: the object model reads every
 * other field by the shared offsets ({@code ibv_wc.wr_id$off}), and {@code LayoutBuilderTest} builds and checks
 * the layout of every struct of the description.
 */
public final class Structs {
    private Structs() {}

    /** {@code struct ibv_device}: its size, for the device list's entries. */
    public static final class ibv_device {
        public static final StructLayout LAYOUT = layout(ContextStructs.ibv_device.DESC);
    }

    /** {@code struct ibv_qp_attr}: its size, for {@code rdma_init_qp_attr}. */
    public static final class ibv_qp_attr {
        public static final StructLayout LAYOUT = layout(QpStructs.ibv_qp_attr.DESC);
    }

    /** {@code struct pollfd} of {@code poll(2)}. */
    public static final class pollfd {
        public static final StructLayout LAYOUT = layout(PosixStructs.pollfd.DESC);
        public static final VarHandle fd$vh = vh(LAYOUT, "fd");
        public static final VarHandle events$vh = vh(LAYOUT, "events");
        public static final VarHandle revents$vh = vh(LAYOUT, "revents");
    }
}
