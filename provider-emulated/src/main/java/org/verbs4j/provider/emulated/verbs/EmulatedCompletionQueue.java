package org.verbs4j.provider.emulated.verbs;

import java.util.ArrayList;
import java.util.List;

import org.verbs4j.AsyncEvent;
import org.verbs4j.AsyncEventType;
import org.verbs4j.CqInitAttributes;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.WcStatus;
import org.verbs4j.WorkCompletionBatch;
import org.verbs4j.provider.emulated.engine.CompletionSink;
import org.verbs4j.provider.emulated.engine.EngineTimer;
import org.verbs4j.spi.support.AbstractCompletionQueue;

/**
 * A completion queue: a ring of preallocated entries in primitive arrays. Producers (the threads that
 * execute WRs) and pollers synchronize on the CQ; neither allocates.
 *
 * <p>When a completion finds the ring full, the CQ overflows: it reports {@link AsyncEventType#CQ_ERR}
 * once, and the QPs that use it move to the error state.
 *
 * <p>Moderation ({@code ibv_modify_cq}) is accepted within the device's {@code cq_mod_caps} and recorded, and the
 * event of an armed CQ still comes with the completion that fires it: {@code cq_period} bounds how long a device
 * may hold an event back, so an event at once is within it, and an application must take each event as it comes
 * on mlx5 too (where a count or period that has not yet run out holds the event back).
 *
 * <p>A CQ created with timestamps stamps each successful completion as it is added, under the CQ's lock, from
 * {@link System#nanoTime()} (the device's raw clock: {@code hca_core_clock} 1,000,000 kHz, one tick a nanosecond)
 * and, for wall-clock time, the same instant shifted to the epoch.
 */
public final class EmulatedCompletionQueue extends AbstractCompletionQueue implements CompletionSink {
    final EmulatedContext context;
    private static final int NOT_ARMED = 0;
    private static final int ARMED_ANY = 1;
    private static final int ARMED_SOLICITED = 2;

    // Unchecked copies of what the object model holds, for the device's completion path.
    private final EmulatedCompletionChannel channel;
    // The ring; a resize replaces it under the CQ's lock.
    private int capacity;
    private long[] wrId;
    private int[] status;
    private int[] opcode;
    private int[] byteLen;
    private int[] immData;
    private int[] qpNum;
    private int[] srcQp;
    private int[] wcFlags;
    /** The raw clock and wall-clock stamps of each entry, or null for a CQ created without them. */
    private long[] stampTs;
    private long[] stampWall;
    private long head;
    private long tail;
    private int armed;
    private boolean overflowed;
    private int moderationCount;
    private int moderationPeriod;
    private final List<EmulatedQueuePair> qps = new ArrayList<>();
    /**
     * A wire device's CQ: most of its completions come from the device's receive thread (the peer's answers), so a
     * poll that finds it empty yields the processor ({@link Thread#yield}): on a machine with fewer cores than busy
     * threads, a poller spinning on it would otherwise hold back the very thread that brings what it waits for
     * (benchmarks/reports/wire.md). An in-JVM device's polls are unchanged.
     */
    private final boolean yieldWhenEmpty;

    EmulatedCompletionQueue(EmulatedContext context, int cqe, EmulatedCompletionChannel channel, long stamps) {
        super(context, context.lock, channel, cqe);
        this.context = context;
        this.channel = channel;
        this.yieldWhenEmpty = context.device.link() != null;
        this.capacity = cqe;
        wrId = new long[cqe];
        status = new int[cqe];
        opcode = new int[cqe];
        byteLen = new int[cqe];
        immData = new int[cqe];
        qpNum = new int[cqe];
        srcQp = new int[cqe];
        wcFlags = new int[cqe];
        stampTs = (stamps & CqInitAttributes.WITH_COMPLETION_TIMESTAMP) != 0 ? new long[cqe] : null;
        stampWall = (stamps & CqInitAttributes.WITH_COMPLETION_TIMESTAMP_WALLCLOCK) != 0 ? new long[cqe] : null;
        if (channel != null) {
            dependOn(channel);
        }
        register();
    }

    /** Records a QP that uses this CQ (the QP {@linkplain #dependOn depends on} it too). */
    void attach(EmulatedQueuePair qp) {
        synchronized (qps) {
            qps.add(qp);
        }
    }

    void detach(EmulatedQueuePair qp) {
        synchronized (qps) {
            qps.remove(qp);
        }
    }

    /**
     * Adds a completion.
     *
     * @param solicited whether the message asked for a solicited event
     * @return false if the CQ overflowed and the completion was lost
     */
    @Override
    public boolean add(long id, int st, int op, int len, int imm, int qpn, int src, int flags, boolean solicited) {
        boolean signal;
        synchronized (this) {
            if (tail - head >= capacity || overflowed) {
                if (!overflowed) {
                    overflowed = true;
                    reportOverflow();
                }
                return false;
            }
            int i = (int) (tail % capacity);
            wrId[i] = id;
            status[i] = st;
            opcode[i] = op;
            byteLen[i] = len;
            immData[i] = imm;
            qpNum[i] = qpn;
            srcQp[i] = src;
            wcFlags[i] = flags;
            if (stampTs != null || stampWall != null) {
                // only a successful completion is stamped: wr_id, status, qp_num and vendor_err are a failed one's
                long now = st == WcStatus.SUCCESS.value() ? EmulatedDevice.rawClock() : 0;
                if (stampTs != null) {
                    stampTs[i] = now;
                }
                if (stampWall != null) {
                    stampWall[i] = now == 0 ? 0 : EmulatedDevice.wallclockNs(now);
                }
            }
            tail++;
            int a = armed;
            signal = a == ARMED_ANY || (a == ARMED_SOLICITED && (solicited || st != WcStatus.SUCCESS.value()));
            if (signal) {
                armed = NOT_ARMED;
            }
        }
        if (signal && channel != null) {
            channel.signal(this);
        }
        return true;
    }

    private void reportOverflow() {
        context.postEvent(new AsyncEvent(AsyncEventType.CQ_ERR, null, this, null, 0));
        EmulatedQueuePair[] users;
        synchronized (qps) {
            users = qps.toArray(new EmulatedQueuePair[0]);
        }
        // Moving the QPs to ERR flushes their queues into CQs; it must not run under this CQ's lock.
        EngineTimer.schedule(() -> {
            for (EmulatedQueuePair qp : users) {
                qp.enterError(AsyncEventType.QP_FATAL);
            }
        }, 0);
    }

    @Override
    protected int pollInto(WorkCompletionBatch batch) {
        synchronized (this) {
            int max = batch.capacity();
            int n = 0;
            while (n < max && head < tail) {
                int i = (int) (head % capacity);
                batch.add(wrId[i], status[i], opcode[i], 0, byteLen[i], immData[i], qpNum[i], srcQp[i], wcFlags[i],
                        0, 0, 0, 0);
                if (stampTs != null || stampWall != null) {
                    batch.stamp(stampTs != null ? stampTs[i] : 0, stampWall != null ? stampWall[i] : 0);
                }
                head++;
                n++;
            }
            if (n > 0 || !yieldWhenEmpty) {
                return n;
            }
        }
        Thread.yield();
        return 0;
    }

    @Override
    protected void arm(boolean solicitedOnly) {
        synchronized (this) {
            armed = solicitedOnly ? ARMED_SOLICITED : ARMED_ANY;
        }
    }

    /**
     * Moves the queued completions, oldest first, into a ring of exactly {@code cqe} entries. rxe's checks, in
     * its order: above max_cqe, or below the completions queued, is EINVAL and changes nothing.
     */
    @Override
    protected int resizeTo(int cqe) {
        if (cqe > EmulatedDevice.MAX_CQE) {
            throw new VerbsException("ibv_resize_cq", Errno.EINVAL,
                    "cqe " + cqe + " exceeds max_cqe " + EmulatedDevice.MAX_CQE);
        }
        synchronized (this) {
            int queued = (int) (tail - head);
            if (cqe < queued) {
                throw new VerbsException("ibv_resize_cq", Errno.EINVAL,
                        "cqe " + cqe + " is below the " + queued + " completions the CQ holds");
            }
            long[] id = new long[cqe];
            int[] st = new int[cqe];
            int[] op = new int[cqe];
            int[] len = new int[cqe];
            int[] imm = new int[cqe];
            int[] qpn = new int[cqe];
            int[] src = new int[cqe];
            int[] flags = new int[cqe];
            long[] ts = stampTs != null ? new long[cqe] : null;
            long[] wall = stampWall != null ? new long[cqe] : null;
            for (int k = 0; k < queued; k++) {
                int i = (int) ((head + k) % capacity);
                id[k] = wrId[i];
                st[k] = status[i];
                op[k] = opcode[i];
                len[k] = byteLen[i];
                imm[k] = immData[i];
                qpn[k] = qpNum[i];
                src[k] = srcQp[i];
                flags[k] = wcFlags[i];
                if (ts != null) {
                    ts[k] = stampTs[i];
                }
                if (wall != null) {
                    wall[k] = stampWall[i];
                }
            }
            wrId = id;
            status = st;
            opcode = op;
            byteLen = len;
            immData = imm;
            qpNum = qpn;
            srcQp = src;
            wcFlags = flags;
            stampTs = ts;
            stampWall = wall;
            capacity = cqe;
            head = 0;
            tail = queued;
            return cqe;
        }
    }

    @Override
    protected void moderate(int cqCount, int cqPeriodMicros) {
        synchronized (this) {
            moderationCount = cqCount;
            moderationPeriod = cqPeriodMicros;
        }
    }

    /** {@return the moderation last set, {@code cq_count} in the low 16 bits and {@code cq_period} in the high 16} */
    synchronized int moderation() {
        return moderationCount | moderationPeriod << 16;
    }

    @Override
    protected int destroy() {
        return 0;
    }

    @Override
    public String toString() {
        synchronized (this) {
            return "EmulatedCompletionQueue[" + capacity + " entries]";
        }
    }
}
