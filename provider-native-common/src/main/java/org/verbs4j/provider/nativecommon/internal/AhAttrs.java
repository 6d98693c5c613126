package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.AhAttributes;
import org.verbs4j.Gid;
import org.verbs4j.GlobalRoute;
import org.verbs4j.provider.nativecommon.internal.QpStructs.ibv_ah_attr;

/** {@code struct ibv_ah_attr} to and from {@link AhAttributes}, through a binding's field access. */
public final class AhAttrs {
    private static final int GID_BYTES = 16;

    private AhAttrs() {}

    /**
     * Writes the attributes, zeroing what they leave unset.
     *
     * @param binding the binding
     * @param a the {@code struct ibv_ah_attr}, {@link ibv_ah_attr#SIZEOF} bytes
     * @param av the attributes
     */
    public static void write(IbverbsBinding binding, long a, AhAttributes av) {
        for (long i = 0; i < ibv_ah_attr.SIZEOF; i++) {
            binding.putByte(a + i, 0);
        }
        GlobalRoute grh = av.grh();
        if (grh != null) {
            binding.putBytes(a + ibv_ah_attr.grh$dgid$off, grh.dgid().toBytes());
            binding.putInt(a + ibv_ah_attr.grh$flow_label$off, grh.flowLabel());
            binding.putByte(a + ibv_ah_attr.grh$sgid_index$off, grh.sgidIndex());
            binding.putByte(a + ibv_ah_attr.grh$hop_limit$off, grh.hopLimit());
            binding.putByte(a + ibv_ah_attr.grh$traffic_class$off, grh.trafficClass());
            binding.putByte(a + ibv_ah_attr.is_global$off, 1);
        }
        binding.putShort(a + ibv_ah_attr.dlid$off, av.dlid());
        binding.putByte(a + ibv_ah_attr.sl$off, av.sl());
        binding.putByte(a + ibv_ah_attr.src_path_bits$off, av.srcPathBits());
        binding.putByte(a + ibv_ah_attr.static_rate$off, av.staticRate());
        binding.putByte(a + ibv_ah_attr.port_num$off, av.portNum());
    }

    /**
     * Reads the attributes.
     *
     * @param binding the binding
     * @param a the {@code struct ibv_ah_attr}
     * @return them, or null when they name no port (no path set)
     */
    public static AhAttributes read(IbverbsBinding binding, long a) {
        int port = binding.getU8(a + ibv_ah_attr.port_num$off);
        if (port == 0) {
            return null;
        }
        GlobalRoute grh = null;
        if (binding.getU8(a + ibv_ah_attr.is_global$off) != 0) {
            byte[] dgid = new byte[GID_BYTES];
            binding.getBytes(a + ibv_ah_attr.grh$dgid$off, dgid);
            grh = new GlobalRoute(Gid.of(dgid), binding.getInt(a + ibv_ah_attr.grh$flow_label$off) & 0xfffff,
                    binding.getU8(a + ibv_ah_attr.grh$sgid_index$off), binding.getU8(a + ibv_ah_attr.grh$hop_limit$off),
                    binding.getU8(a + ibv_ah_attr.grh$traffic_class$off));
        }
        return new AhAttributes(grh, binding.getU16(a + ibv_ah_attr.dlid$off),
                binding.getU8(a + ibv_ah_attr.sl$off) & 0xf, binding.getU8(a + ibv_ah_attr.src_path_bits$off),
                binding.getU8(a + ibv_ah_attr.static_rate$off), port);
    }
}
