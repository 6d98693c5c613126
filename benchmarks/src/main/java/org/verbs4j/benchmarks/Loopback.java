package org.verbs4j.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Gid;
import org.verbs4j.MemoryRegion;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.Verbs;
import org.verbs4j.spi.VerbsProvider;

/**
 * One device of a named provider with a protection domain and two registered buffers, on which benchmarks create
 * RC queue pairs connected to each other (loopback through port 1).
 *
 * <p>The device is {@code $VERBS4J_RDMA_DEVICE} when that is set (the soft-RoCE guest sets it to rxe0), else the
 * provider's first device. The GID index is {@code $VERBS4J_RDMA_GID_INDEX} when set, else the first IPv4-mapped
 * (RoCE v2) entry of port 1, else entry 1, else entry 0.
 */
final class Loopback implements AutoCloseable {
    private static final int PORT = 1;

    final Context ctx;
    final ProtectionDomain pd;
    final MemoryRegion src;
    final MemoryRegion dst;
    private final Arena arena;
    private final int gidIndex;
    private final Gid gid;
    private final PortAttributes port;

    /**
     * Opens the device and registers two buffers of {@code bufferBytes} bytes each, page aligned.
     *
     * @param providerName a provider's {@link VerbsProvider#name()}: emulated, ffm or jnr
     * @throws IllegalArgumentException when no provider of that name is on the class path
     * @throws org.verbs4j.ProviderUnavailableException when that provider is unavailable here, with its cause
     */
    Loopback(String providerName, long bufferBytes) {
        // Not Verbs.provider(name): that logs its choice, once per trial here.
        VerbsProvider provider = Verbs.providers().stream().filter(p -> p.name().equals(providerName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no verbs4j provider '" + providerName
                        + "' on the class path; found " + Verbs.providers().stream().map(VerbsProvider::name).toList()));
        provider.ensureAvailability();
        String deviceName = System.getenv("VERBS4J_RDMA_DEVICE");
        Device device = deviceName == null || deviceName.isBlank() || providerName.equals("emulated")
                ? provider.devices().getFirst() : provider.device(deviceName);
        ctx = device.open();
        arena = Arena.ofShared();
        try {
            pd = ctx.allocPd();
            MemorySegment a = arena.allocate(bufferBytes, 4096);
            MemorySegment b = arena.allocate(bufferBytes, 4096);
            src = pd.registerMemory(a, AccessFlags.LOCAL_WRITE, arena);
            dst = pd.registerMemory(b, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, arena);
            port = ctx.queryPort(PORT);
            gidIndex = gidIndex(ctx, port, providerName);
            gid = ctx.queryGid(PORT, gidIndex);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private static int gidIndex(Context ctx, PortAttributes port, String providerName) {
        String env = System.getenv("VERBS4J_RDMA_GID_INDEX");
        if (env != null && !env.isBlank() && !providerName.equals("emulated")) {
            return Integer.parseInt(env.trim());
        }
        for (int i = 0; i < port.gidTblLen(); i++) {
            Gid g = ctx.queryGid(PORT, i);
            if (g.subnetPrefix() == 0 && (g.interfaceId() >>> 32) == 0xffffL) {
                return i;
            }
        }
        return port.gidTblLen() > 1 ? 1 : 0;
    }

    /** Takes two RC queue pairs from RESET to RTS, each one's destination being the other. */
    void connect(QueuePair x, QueuePair y) {
        AhAttributes av = AhAttributes.roce(gid, gidIndex, PORT);
        for (QueuePair[] p : new QueuePair[][] {{x, y}, {y, x}}) {
            p[0].modify(QpAttributes.toInit(PORT, 0, AccessFlags.REMOTE_WRITE));
            p[0].modify(QpAttributes.toRtr(av, port.activeMtu(), p[1].qpNum(), 0, 1, 12));
            p[0].modify(QpAttributes.toRts(0, 14, 7, 7, 1));
        }
    }

    @Override
    public void close() {
        // Closing the context releases every verbs object made from it; the buffers go after.
        ctx.close();
        arena.close();
    }
}
