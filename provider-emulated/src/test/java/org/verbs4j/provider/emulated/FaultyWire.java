package org.verbs4j.provider.emulated;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;

import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.PacketSender;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.provider.emulated.wire.codec.Icrc;
import org.verbs4j.provider.emulated.wire.codec.Ipv4Udp;
import org.verbs4j.provider.emulated.wire.codec.Packet;

/**
 * The fault-injection harness between wire devices of this JVM: a {@link RoceEndpoint.Tap} on each device's
 * endpoint sees every packet it sends (requests and responses alike) and, by rule, drops, duplicates, delays,
 * reorders, corrupts or rewrites the Nth packet of a given BTH opcode (counted from 1 over every device the
 * harness is installed on), or every packet of an opcode at a given PSN. Deterministic: a rule names its packet.
 * A {@linkplain #random random mode} draws the same faults from a seeded {@link Random} instead, for the soak.
 *
 * <p>It counts every packet sent by opcode (before faults), so a test can bound what recovery cost. Delayed
 * packets go out from a scheduler thread of the harness; a reordered packet goes out right after the next packet
 * its endpoint sends (or after {@link #REORDER_FLUSH_MS} if none follows).
 */
final class FaultyWire implements RoceEndpoint.Tap, AutoCloseable {
    /** What happens to a packet a rule matches. */
    enum Fault { DROP, DUPLICATE, DELAY, REORDER, CORRUPT }

    /**
     * The key of a NAK (an ACKNOWLEDGE whose AETH syndrome is a NAK) in the rules and counters: a NAK is counted
     * under this key, not under its BTH opcode.
     */
    static final int NAK = 0x100;
    /** {@code -Dverbs4j.test.faultyWire.trace=true}: print every packet the harness sees. */
    static final boolean TRACE = Boolean.getBoolean("verbs4j.test.faultyWire.trace");

    /** The longest a reordered packet waits for a packet to overtake it, ms. */
    static final long REORDER_FLUSH_MS = 20;

    /**
     * A rule: {@code fault} for the {@code nth} packet (from 1) with BTH opcode {@code opcode}, or for every such
     * packet when {@code nth} is 0; {@code psn} &gt;= 0 narrows it to that PSN. {@code delayMs} for DELAY.
     */
    record Rule(int opcode, int nth, int psn, Fault fault, long delayMs) {}

    private final List<RoceEndpoint> endpoints = new ArrayList<>();
    private final List<Rule> rules = new ArrayList<>();
    /** Consumers that may rewrite a parsed packet before it is sealed again (a forging peer in the path). */
    private final List<Rewrite> rewrites = new ArrayList<>();
    private final AtomicIntegerArray sent = new AtomicIntegerArray(257);
    private final AtomicIntegerArray matched = new AtomicIntegerArray(257);
    private final AtomicIntegerArray faulted = new AtomicIntegerArray(257);
    private final ScheduledThreadPoolExecutor later = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "faulty-wire");
        t.setDaemon(true);
        return t;
    });

    {
        // close() drops what is still held back; it never interrupts a send (see there).
        later.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }
    private Random random;
    private double loss;
    private double duplicate;
    private double reorder;
    private long jitterMs;
    /** The packet each endpoint holds back to reorder, with its destination. */
    private final java.util.Map<RoceEndpoint, Held> held = new java.util.HashMap<>();

    private record Held(ByteBuffer packet, InetSocketAddress to) {}

    private record Rewrite(int opcode, int nth, Consumer<Packet> change) {}

    /** Installs the harness on the devices' endpoints. */
    FaultyWire(EmulatedDevice... devices) {
        for (EmulatedDevice d : devices) {
            endpoints.add(RoceEndpoint.of(d));
            RoceEndpoint.of(d).tap = this;
        }
    }

    /** Adds a rule. */
    synchronized FaultyWire on(int opcode, int nth, Fault fault) {
        rules.add(new Rule(opcode, nth, -1, fault, 0));
        return this;
    }

    /** Adds a rule with its PSN and delay. */
    synchronized FaultyWire on(Rule rule) {
        rules.add(rule);
        return this;
    }

    /** Rewrites the {@code nth} packet of {@code opcode}: {@code change} edits its parsed fields, then it is sealed again. */
    synchronized FaultyWire rewrite(int opcode, int nth, Consumer<Packet> change) {
        rewrites.add(new Rewrite(opcode, nth, change));
        return this;
    }

    /** Random faults for every packet: probabilities of loss, duplication and reordering; one packet in ten of the rest is delayed up to {@code jitterMs}. */
    synchronized FaultyWire random(long seed, double loss, double duplicate, double reorder, long jitterMs) {
        this.random = new Random(seed);
        this.loss = loss;
        this.duplicate = duplicate;
        this.reorder = reorder;
        this.jitterMs = jitterMs;
        return this;
    }

    /** Stops injecting faults (counting goes on): the network heals. */
    synchronized void heal() {
        rules.clear();
        rewrites.clear();
        random = null;
    }

    /** Packets sent with BTH opcode {@code opcode}, before faults. */
    int sent(int opcode) {
        return sent.get(opcode);
    }

    /** Packets of {@code opcode} a rule or the random mode faulted. */
    int faulted(int opcode) {
        return faulted.get(opcode);
    }

    /** Every packet sent, before faults. */
    int sentTotal() {
        int n = 0;
        for (int i = 0; i < 257; i++) {
            n += sent.get(i);
        }
        return n;
    }

    /** Every packet faulted. */
    int faultedTotal() {
        int n = 0;
        for (int i = 0; i < 257; i++) {
            n += faulted.get(i);
        }
        return n;
    }

    /** The packets sent and faulted, by opcode. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("sent/faulted:");
        for (int i = 0; i < 257; i++) {
            if (sent.get(i) > 0) {
                b.append(' ').append(i == NAK ? "NAK" : org.verbs4j.provider.emulated.wire.codec.Opcode.name(i))
                        .append('=').append(sent.get(i)).append('/').append(faulted.get(i));
            }
        }
        return b.toString();
    }

    @Override
    public synchronized boolean intercept(RoceEndpoint from, ByteBuffer packet, InetSocketAddress to) {
        int opcode = packet.get(packet.position()) & 0xff;
        // An RC or an XRC ACKNOWLEDGE whose AETH is a NAK.
        if ((opcode == org.verbs4j.provider.emulated.wire.codec.Opcode.ACKNOWLEDGE
                || opcode == (org.verbs4j.provider.emulated.wire.codec.Opcode.XRC
                        | org.verbs4j.provider.emulated.wire.codec.Opcode.ACKNOWLEDGE))
                && (packet.get(packet.position() + 12) & Packet.AETH_TYPE_MASK) == Packet.AETH_NAK) {
            opcode = NAK;
        }
        int psn = packet.getInt(packet.position() + 8) & Packet.MASK_24;
        sent.incrementAndGet(opcode);
        int nth = matched.incrementAndGet(opcode);
        if (TRACE) {
            System.out.printf("%d %s %s psn=%d #%d%n", System.nanoTime() / 1000 % 10_000_000, from.local,
                    opcode == NAK ? "NAK" : org.verbs4j.provider.emulated.wire.codec.Opcode.name(opcode), psn, nth);
        }
        Held before = held.remove(from);
        try {
            ByteBuffer p = packet;
            for (Rewrite r : rewrites) {
                if (r.opcode == opcode && r.nth == nth) {
                    p = reseal(from, copy(packet), to, r.change);
                }
            }
            Fault f = null;
            long delay = 0;
            for (Rule r : rules) {
                if (r.opcode == opcode && (r.nth == 0 || r.nth == nth) && (r.psn < 0 || r.psn == psn)) {
                    f = r.fault;
                    delay = r.delayMs;
                    break;
                }
            }
            if (f == null && random != null) {
                double x = random.nextDouble();
                if (x < loss) {
                    f = Fault.DROP;
                } else if (x < loss + duplicate) {
                    f = Fault.DUPLICATE;
                } else if (x < loss + duplicate + reorder) {
                    f = Fault.REORDER;
                } else if (jitterMs > 0 && random.nextInt(10) == 0) {
                    // Jitter on one packet in ten: delaying each would reorder nearly every packet.
                    delay = random.nextLong(jitterMs + 1);
                    f = delay > 0 ? Fault.DELAY : null;
                }
            }
            if (f == null) {
                from.sendNow(p.duplicate(), to);
                return true;
            }
            faulted.incrementAndGet(opcode);
            switch (f) {
                case DROP -> { }
                case DUPLICATE -> {
                    from.sendNow(p.duplicate(), to);
                    from.sendNow(p.duplicate(), to);
                }
                case DELAY -> {
                    ByteBuffer c = copy(p);
                    later.schedule(() -> from.sendNow(c, to), delay, TimeUnit.MILLISECONDS);
                }
                case REORDER -> {
                    ByteBuffer c = copy(p);
                    held.put(from, new Held(c, to));
                    later.schedule(() -> flush(from, c), REORDER_FLUSH_MS, TimeUnit.MILLISECONDS);
                }
                case CORRUPT -> {
                    ByteBuffer c = copy(p);
                    // A bit of the payload or last header byte flipped: the ICRC no longer holds.
                    int at = c.limit() - 5;
                    c.put(at, (byte) (c.get(at) ^ 0x10));
                    from.sendNow(c, to);
                }
                default -> throw new AssertionError(f);
            }
            return true;
        } finally {
            // A packet held back to reorder goes out after this one.
            if (before != null) {
                from.sendNow(before.packet, before.to);
            }
        }
    }

    private synchronized void flush(RoceEndpoint from, ByteBuffer c) {
        Held h = held.get(from);
        if (h != null && h.packet == c) {
            held.remove(from);
            from.sendNow(h.packet, h.to);
        }
    }

    private static ByteBuffer copy(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocate(b.remaining());
        c.put(b.duplicate()).flip();
        return c;
    }

    /** Parses {@code b} (sent by {@code from} to {@code to}), lets {@code change} edit it, and seals it again. */
    private static ByteBuffer reseal(RoceEndpoint from, ByteBuffer b, InetSocketAddress to, Consumer<Packet> change) {
        Icrc icrc = new Icrc();
        Ipv4Udp ip = new Ipv4Udp().set(from.localAddr, from.localPort, RoceEndpoint.ipv4(to), to.getPort());
        Packet p = new Packet();
        if (p.parse(b, b.limit(), icrc, ip) != null) {
            throw new AssertionError("the harness cannot parse a packet it was given");
        }
        // Where the payload is before the change: a new opcode may have other headers (a READ_RESPONSE_FIRST
        // rewritten as MIDDLE loses its AETH), and the payload stays what it was.
        int payloadOffset = p.payloadOffset();
        int payloadLength = p.payloadLength;
        change.accept(p);
        ByteBuffer out = ByteBuffer.allocate(RoceEndpoint.MAX_PACKET);
        int off = p.writeHeaders(out);
        out.put(off, b, payloadOffset, payloadLength);
        int len = p.seal(out, icrc, ip);
        return out.limit(len).position(0);
    }

    /** Sends a packet built by {@code build} from {@code from} to {@code to}, sealed as that device would seal it. */
    static void forge(EmulatedDevice from, InetSocketAddress to, Consumer<PacketSender> build) {
        PacketSender tx = new PacketSender();
        build.accept(tx);
        tx.emit(RoceEndpoint.of(from), to);
    }

    @Override
    public void close() {
        for (RoceEndpoint e : endpoints) {
            e.tap = null;
        }
        // Not shutdownNow: its interrupt, finding the harness thread inside a send, would close the device's
        // channel (an interruptible channel closes when its thread is interrupted), and that wire device of the
        // JVM would receive nothing in every later test. The packets still held back are dropped; a send under way
        // ends first.
        later.shutdown();
        try {
            later.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
