package org.verbs4j.osgi.consumer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.verbs4j.AccessFlags;
import org.verbs4j.AhAttributes;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Gid;
import org.verbs4j.LinkLayer;
import org.verbs4j.MemoryRegion;
import org.verbs4j.Mtu;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpAttributes;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.Verbs;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;
import org.verbs4j.spi.VerbsProvider;

/**
 * The consumer bundle of {@code FelixServiceLoaderMediatorTest}: packed into its own bundle by the test (importing
 * only {@code org.verbs4j} and {@code org.verbs4j.spi}) and called through {@link Function}, a JDK type, so that
 * nothing of verbs4j crosses between the test's class path and the framework.
 *
 * <p>{@code apply(name)} selects the provider {@code name} through {@link Verbs#provider(String)} (uncached) and
 * does one RDMA WRITE between two RC QPs on its first device. The answer: {@code providers} (the names
 * {@link Verbs#providers()} found, each with {@code +} if available, {@code -} if not), then either {@code error}
 * (the exception's class and message) and, if the provider is found but unavailable, {@code unavailable} (its
 * cause), or {@code class} (the provider's {@link Class}), {@code device} and
 * {@code written} (what the WRITE put into the target buffer).
 */
public final class VerbsConsumer implements Function<String, Map<String, Object>> {

    /** What the WRITE carries. */
    public static final String MESSAGE = "hello from an OSGi bundle";

    @Override
    public Map<String, Object> apply(String name) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("providers", Verbs.providers().stream()
                .map(p -> p.name() + (p.isAvailable() ? "+" : "-")).toList());
        VerbsProvider provider;
        try {
            provider = Verbs.provider(name);
        } catch (RuntimeException e) {
            out.put("error", e.getClass().getName() + ": " + e.getMessage());
            Verbs.providers().stream().filter(p -> p.name().equals(name) && !p.isAvailable()).findFirst()
                    .ifPresent(p -> out.put("unavailable", String.valueOf(p.unavailabilityCause())));
            return out;
        }
        out.put("class", provider.getClass());
        out.put("device", provider.devices().get(0).name());
        out.put("written", writeOnce(provider));
        return out;
    }

    /** One RDMA WRITE from QP a into QP b's buffer on the provider's first device, port 1; the target's text. */
    private static String writeOnce(VerbsProvider provider) {
        int port = 1;
        try (Arena arena = Arena.ofConfined();
             Context ctx = provider.devices().get(0).open();
             ProtectionDomain pd = ctx.allocPd();
             CompletionQueue cq = ctx.createCq(16)) {
            PortAttributes portAttr = ctx.queryPort(port);
            int gidIndex = 0;
            while (ctx.queryGid(port, gidIndex).isZero()) {
                gidIndex++;
            }
            Gid gid = ctx.queryGid(port, gidIndex);
            MemorySegment src = arena.allocate(4096, 4096);
            MemorySegment dst = arena.allocate(4096, 4096);
            try (MemoryRegion srcMr = pd.registerMemory(src, AccessFlags.LOCAL_WRITE, arena);
                 MemoryRegion dstMr = pd.registerMemory(dst, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE, arena);
                 QueuePair a = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq)
                         .sendOps(WrOpcode.RDMA_WRITE).build());
                 QueuePair b = pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).build())) {
                AhAttributes toPeer = portAttr.linkLayer() == LinkLayer.ETHERNET
                        ? AhAttributes.roce(gid, gidIndex, port)
                        : new AhAttributes(null, portAttr.lid(), 0, 0, 0, port);
                a.modify(QpAttributes.toInit(port, 0, 0));
                b.modify(QpAttributes.toInit(port, 0, AccessFlags.REMOTE_WRITE));
                a.modify(QpAttributes.toRtr(toPeer, Mtu.MTU_1024, b.qpNum(), 0x200, 1, 12));
                b.modify(QpAttributes.toRtr(toPeer, Mtu.MTU_1024, a.qpNum(), 0x100, 1, 12));
                a.modify(QpAttributes.toRts(0x100, 14, 7, 7, 1));
                b.modify(QpAttributes.toRts(0x200, 14, 7, 7, 1));
                src.setString(0, MESSAGE, StandardCharsets.US_ASCII);
                try (WrSession s = a.startWr()) {
                    s.wrId(7);
                    s.wrFlags(SendFlags.SIGNALED);
                    s.rdmaWrite(dstMr.rkey(), dstMr.address());
                    s.setSge(srcMr.lkey(), srcMr.address(), MESSAGE.length() + 1);
                    s.complete();
                }
                WorkCompletionBatch wc = new WorkCompletionBatch(4);
                int polled = 0;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (polled == 0 && System.nanoTime() < deadline) {
                    polled = cq.poll(wc);
                }
                if (polled == 0 || wc.status(0) != WcStatus.SUCCESS || wc.wrId(0) != 7) {
                    return "no WRITE completion: " + (polled == 0 ? "none in 10 s" : wc.get(0));
                }
                return dst.getString(0, StandardCharsets.US_ASCII);
            }
        }
    }
}
