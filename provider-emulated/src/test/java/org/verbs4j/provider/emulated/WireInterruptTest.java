package org.verbs4j.provider.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.verbs4j.MemoryRegion;
import org.verbs4j.QpType;
import org.verbs4j.WcStatus;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;
import org.verbs4j.tck.Data;
import org.verbs4j.tck.QpPair;
import org.verbs4j.tck.Testbed;

/**
 * A posting thread interrupted while it sends. The wire requester sends on the posting thread through the device's
 * blocking {@code DatagramChannel}, which an interrupt closes; the TCK's misuse rule covers an interrupt status set
 * before the post, this test the interrupts that land during the send itself, which close the socket
 * ({@link RoceEndpoint#reopens}).
 */
@Tag("wire")
class WireInterruptTest {
    @Test
    @DisplayName("Another thread interrupts the posting thread every 20 us while it WRITEs: an interrupt that closes "
            + "the socket under a send costs a packet, a new socket takes the address, and every WRITE completes "
            + "SUCCESS, also after the interrupts")
    void interruptsDuringSends() throws Exception {
        try (Testbed tb = Testbed.open(new EmulatedProvider(), "roce0", 1, 1, WireDevicesTest.ACK_TIMEOUT)) {
            RoceEndpoint endpoint = RoceEndpoint.of(tb.device());
            QpPair p = tb.pair(QpType.RC);
            MemoryRegion src = tb.buffer(4096);
            MemoryRegion dst = p.remoteBuffer(4096);
            Data.fill(src, 7);
            Thread poster = Thread.currentThread();
            AtomicBoolean stop = new AtomicBoolean();
            Thread interrupter = Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) {   // ended by the poster's finally
                    poster.interrupt();
                    LockSupport.parkNanos(20_000L);
                }
            });
            long before = endpoint.reopens();
            int writes = 0;
            // A packet lost with a closed socket goes again after the ACK timeout (about 1.07 s, as the wire kit's,
            // so that a starved receive thread on a loaded machine is not taken for a lost packet).
            long deadline = System.nanoTime() + 20_000_000_000L;
            try {
                while (endpoint.reopens() - before < 3 && System.nanoTime() < deadline) {   // the budget ends it
                    assertEquals(WcStatus.SUCCESS, p.write(writes, src, 64, dst.address(), dst.rkey()).status(),
                            "WRITE " + writes + " (" + (endpoint.reopens() - before) + " sockets bound again)");
                    writes++;
                }
            } finally {
                stop.set(true);
                long end = System.nanoTime() + 5_000_000_000L;
                while (interrupter.isAlive() && System.nanoTime() < end) {   // not join(): this thread is interrupted
                    LockSupport.parkNanos(1_000_000L);
                }
                Thread.interrupted();
            }
            long reopened = endpoint.reopens() - before;
            assumeTrue(reopened > 0, "no interrupt landed inside a send in " + writes + " WRITEs");
            assertEquals(WcStatus.SUCCESS, p.write(writes, src, 4096, dst.address(), dst.rkey()).status(),
                    "a WRITE after " + writes + " WRITEs and " + reopened + " sockets bound again");
            Data.assertPattern("the last WRITE's data", dst.segment(), 0, 4096, 7, 0);
            assertFalse(Thread.currentThread().isInterrupted());
        }
    }
}
