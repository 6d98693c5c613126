package org.verbs4j.tools.perf;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.verbs4j.AddressHandle;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.SendWr;
import org.verbs4j.Sge;
import org.verbs4j.WrOpcode;
import org.verbs4j.WrSession;

/**
 * Posts a test's WRs on one QP, all alike: the same opcode, local slot and remote buffer. WR {@code seq} of a
 * run carries {@code wrId = qpIndex << 40 | seq} and is signaled when {@code seq % cqMod == cqMod - 1}, or when it
 * is the run's last WR, so that one completion retires every WR before it.
 */
abstract sealed class Poster permits Poster.Session, Poster.PostSendList {
    static final int QP_SHIFT = 40;
    static final long SEQ_MASK = (1L << QP_SHIFT) - 1;

    final QueuePair qp;
    final WrOpcode opcode;
    final int qpIndex;
    final int lkey;
    final long localAddr;
    final int length;
    final int rkey;
    final long remoteAddr;
    final boolean inline;
    final AddressHandle ah;
    final int remoteQpn;
    final int cqMod;
    /** The sequence number of the run's last WR; it is always signaled. Long.MAX_VALUE for a timed run. */
    long lastSeq = Long.MAX_VALUE;

    Poster(Endpoint local, int q, PeerInfo remote, int length) {
        this.qp = local.qps[q];
        this.opcode = local.settings.test().opcode();
        this.qpIndex = q;
        this.lkey = local.mr.lkey();
        // Writes and sends read the outgoing half; reads and atomics land in the incoming half.
        this.localAddr = opcode == WrOpcode.RDMA_READ || opcode.isAtomic() ? local.inAddress(q) : local.slotAddress(q);
        this.length = length;
        this.rkey = remote.rkey();
        this.remoteAddr = remote.address();
        this.inline = local.settings.inline();
        this.ah = local.ahs[q];
        this.remoteQpn = remote.qpn();
        this.cqMod = local.settings.cqMod();
    }

    /** A poster of the kind the settings ask for. */
    static Poster create(Endpoint local, int q, PeerInfo remote, int length) {
        return local.settings.postApi() == PostApi.WR ? new Session(local, q, remote, length)
                : new PostSendList(local, q, remote, length);
    }

    final boolean signaled(long seq) {
        return seq % cqMod == cqMod - 1 || seq == lastSeq;
    }

    final long wrId(long seq) {
        return (long) qpIndex << QP_SHIFT | seq;
    }

    /** Posts WRs {@code firstSeq .. firstSeq + count - 1}. */
    abstract void post(long firstSeq, int count);

    /** Through {@link WrSession}: one {@code ibv_wr_start}/{@code ibv_wr_complete} per call. */
    static final class Session extends Poster {
        private final MemorySegment inlineData;

        Session(Endpoint local, int q, PeerInfo remote, int length) {
            super(local, q, remote, length);
            this.inlineData = inline ? local.buffer.asSlice(local.slotOffset(q), length) : null;
        }

        @Override
        void post(long firstSeq, int count) {
            WrSession s = qp.startWr();
            try {
                for (int i = 0; i < count; i++) {
                    long seq = firstSeq + i;
                    s.wrId(wrId(seq));
                    s.wrFlags(signaled(seq) ? SendFlags.SIGNALED : 0);
                    switch (opcode) {
                        case RDMA_WRITE -> s.rdmaWrite(rkey, remoteAddr);
                        case RDMA_READ -> s.rdmaRead(rkey, remoteAddr);
                        case ATOMIC_FETCH_AND_ADD -> s.atomicFetchAdd(rkey, remoteAddr, 1);
                        default -> s.send();
                    }
                    if (qp.type() == QpType.UD) {
                        s.setUdAddr(ah, remoteQpn, Endpoint.QKEY);
                    }
                    if (inline) {
                        s.setInlineData(inlineData);
                    } else {
                        s.setSge(lkey, localAddr, length);
                    }
                }
                s.complete();
            } finally {
                s.close();
            }
        }
    }

    /** Through {@link QueuePair#postSend(List)}: one reused list of {@link SendWr}, a prefix per call. */
    static final class PostSendList extends Poster {
        private final SendWr[] wrs;
        private final List<List<SendWr>> prefixes = new ArrayList<>();

        PostSendList(Endpoint local, int q, PeerInfo remote, int length) {
            super(local, q, remote, length);
            int n = local.settings.postList();
            wrs = new SendWr[n];
            List<SendWr> all = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                SendWr wr = new SendWr().opcode(opcode).sgList(new Sge(localAddr, length, lkey));
                switch (opcode) {
                    case RDMA_WRITE, RDMA_READ -> wr.rdma(remoteAddr, rkey);
                    case ATOMIC_FETCH_AND_ADD -> wr.atomic(remoteAddr, 1, 0, rkey);
                    default -> { }
                }
                if (qp.type() == QpType.UD) {
                    wr.ud(ah, remoteQpn, Endpoint.QKEY);
                }
                wrs[i] = wr;
                all.add(wr);
            }
            // Sublist views made once, so that a post allocates nothing.
            prefixes.add(List.of());
            for (int i = 1; i <= n; i++) {
                prefixes.add(all.subList(0, i));
            }
        }

        @Override
        void post(long firstSeq, int count) {
            int base = inline ? SendFlags.INLINE : 0;
            for (int i = 0; i < count; i++) {
                long seq = firstSeq + i;
                wrs[i].wrId(wrId(seq)).sendFlags(base | (signaled(seq) ? SendFlags.SIGNALED : 0));
            }
            qp.postSend(prefixes.get(count));
        }
    }
}
