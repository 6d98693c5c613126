package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.verbs4j.AddressHandle;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MwBindInfo;
import org.verbs4j.MwType;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.SendFlags;
import org.verbs4j.Sge;
import org.verbs4j.VerbsException;
import org.verbs4j.VerbsObject;
import org.verbs4j.WrOpcode;

/**
 * The shared WR-batch state machine against a recording provider: what reaches {@code emit}, in which order and
 * with which fields, and what never reaches it.
 */
class AbstractWrSessionTest {
    /** A provider that records its calls as text, owning only the objects it is told about. */
    static final class Recorder extends AbstractWrSession {
        final List<String> calls = new ArrayList<>();
        final Set<Object> owned;
        boolean ready = true;
        int room = Integer.MAX_VALUE;
        int completeRc;

        Recorder(QpType type, Set<WrOpcode> ops, Set<Object> owned) {
            super(openQp(), type, ops, 16, 2, false);
            this.owned = owned;
        }

        @Override
        protected boolean owns(VerbsObject o) {
            return owned.contains(o);
        }

        @Override
        protected boolean sendQueueReady() {
            return ready;
        }

        @Override
        protected int sendQueueRoom() {
            return room;
        }

        @Override
        protected void startBatch() {
            calls.add("start");
        }

        @Override
        protected void emit(PendingWr wr) {
            StringBuilder b = new StringBuilder("emit ").append(wr.opcode()).append(" id=").append(wr.wrId())
                    .append(" flags=").append(SendFlags.toString(wr.wrFlags()));
            switch (wr.dataKind()) {
                case PendingWr.DATA_SGE, PendingWr.DATA_SGE_LIST -> {
                    for (int i = 0; i < wr.sgeCount(); i++) {
                        b.append(" sge=").append(wr.sgeLkey(i)).append('/').append(wr.sgeAddr(i)).append('/')
                                .append(wr.sgeLength(i));
                    }
                }
                case PendingWr.DATA_INLINE -> {
                    b.append(" inline=");
                    for (int i = 0; i < wr.inlineLength(); i++) {
                        b.append(wr.inlineData().get(ValueLayout.JAVA_BYTE, i));
                    }
                }
                default -> { }
            }
            if (wr.ah() != null) {
                b.append(" ud=").append(wr.remoteQpn());
            }
            calls.add(b.toString());
        }

        @Override
        protected int completeBatch() {
            calls.add("complete");
            return completeRc;
        }

        @Override
        protected void abortBatch() {
            calls.add("abort");
        }

        void begin() {
            control().open();
        }
    }

    static QueuePair openQp() {
        QueuePair qp = mock(QueuePair.class);
        when(qp.isClosed()).thenReturn(false);
        return qp;
    }

    private static Recorder rc(WrOpcode... ops) {
        return new Recorder(QpType.RC, Set.of(ops), Set.of());
    }

    @Test
    void emitsEachWholeWrInOrderWithTheWrIdAndFlagsOfItsBuilder() {
        Recorder s = rc(WrOpcode.RDMA_WRITE, WrOpcode.SEND);
        s.begin();
        s.wrId(1);
        s.wrFlags(SendFlags.SIGNALED);
        s.rdmaWrite(7, 4096);
        s.wrId(99);
        s.wrFlags(0);
        s.setSge(3, 100, 8);
        s.send();
        s.setSgeList(new Sge[] {new Sge(200, 4, 5), new Sge(300, 6, 5)}, 2);
        s.complete();
        assertEquals(List.of("start", "emit RDMA_WRITE id=1 flags=SIGNALED sge=3/100/8",
                "emit SEND id=99 flags=0 sge=5/200/4 sge=5/300/6", "complete"), s.calls);
        assertFalse(s.isActive());
    }

    @Test
    void inlineDataIsCopiedAtTheSetterAndItsWrCarriesTheInlineFlag() {
        Recorder s = rc(WrOpcode.SEND);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment data = a.allocate(3);
            data.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
            data.set(ValueLayout.JAVA_BYTE, 1, (byte) 2);
            data.set(ValueLayout.JAVA_BYTE, 2, (byte) 3);
            s.begin();
            s.send();
            s.setInlineData(data);
            data.fill((byte) 9);
            s.complete();
        }
        assertEquals("emit SEND id=0 flags=INLINE inline=123", s.calls.get(1));
    }

    @Test
    void aBrokenRuleDiscardsTheWholeBatchAndNothingOfItIsEmitted() {
        Recorder s = rc(WrOpcode.RDMA_WRITE);
        s.begin();
        s.rdmaWrite(1, 2);
        s.setSge(1, 2, 3);
        s.send(); // not in sendOps
        s.setSge(1, 2, 3);
        VerbsException e = assertThrows(VerbsException.class, s::complete);
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("SEND was not requested"), e.getMessage());
        assertEquals(List.of("start", "emit RDMA_WRITE id=0 flags=0 sge=1/2/3", "abort"), s.calls,
                "the WR before the fault reached the provider's batch, which is then aborted");
    }

    @Test
    void mandatorySettersAreChecked() {
        Recorder s = rc(WrOpcode.RDMA_WRITE, WrOpcode.LOCAL_INV);
        s.begin();
        s.rdmaWrite(1, 2);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "no DATA setter");
        s.begin();
        s.localInv(5);
        s.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "DATA on LOCAL_INV");
        s.begin();
        s.rdmaWrite(1, 2);
        s.setSge(1, 2, 3);
        s.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "second DATA setter");
        s.begin();
        s.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "setter first");
        Recorder ud = new Recorder(QpType.UD, Set.of(WrOpcode.SEND), Set.of());
        ud.begin();
        ud.send();
        ud.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, ud::complete).errno(), "UD without address");
        assertFalse(s.calls.stream().anyMatch(c -> c.startsWith("emit")), "no broken WR is ever emitted");
    }

    @Test
    void udAddressNeedsAnOpenHandleOfThisProvider() {
        AddressHandle mine = mock(AddressHandle.class);
        AddressHandle foreign = mock(AddressHandle.class);
        Recorder ud = new Recorder(QpType.UD, Set.of(WrOpcode.SEND), Set.of(mine));
        ud.begin();
        ud.send();
        ud.setUdAddr(mine, 0x12, 0x1111);
        ud.setSge(1, 2, 3);
        ud.complete();
        assertEquals("emit SEND id=0 flags=0 sge=1/2/3 ud=18", ud.calls.get(1));
        ud.begin();
        ud.send();
        ud.setUdAddr(foreign, 0x12, 0x1111);
        ud.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, ud::complete).errno());
        when(mine.isClosed()).thenReturn(true);
        ud.begin();
        ud.send();
        ud.setUdAddr(mine, 0x12, 0x1111);
        ud.setSge(1, 2, 3);
        assertTrue(assertThrows(VerbsException.class, ud::complete).getMessage().contains("closed"));
    }

    @Test
    void limitsFlagsRoomAndStateAreChecked() {
        Recorder s = rc(WrOpcode.SEND);
        s.begin();
        s.send();
        s.setInlineData(MemorySegment.ofArray(new byte[17]));
        assertTrue(assertThrows(VerbsException.class, s::complete).getMessage().contains("max_inline_data"));
        s.begin();
        s.send();
        Sge g = new Sge(1, 1, 1);
        s.setSgeList(new Sge[] {g, g, g}, 3);
        assertTrue(assertThrows(VerbsException.class, s::complete).getMessage().contains("max_send_sge"));
        s.begin();
        s.wrFlags(SendFlags.IP_CSUM);
        s.send();
        s.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "IP_CSUM without cap");
        s.begin();
        s.wrFlags(1 << 20);
        s.send();
        s.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "unknown flag bit");
        s.begin();
        s.wrFlags(0);
        s.abort();
        s.room = 1;
        s.begin();
        s.send();
        s.setSge(1, 2, 3);
        s.send();
        s.setSge(1, 2, 3);
        assertEquals(Errno.ENOMEM, assertThrows(VerbsException.class, s::complete).errno(), "beyond the room");
        s.ready = false;
        s.calls.clear();
        s.begin();
        s.complete();
        assertEquals(List.of(), s.calls, "an empty batch in a state that cannot post succeeds and posts nothing");
        s.begin();
        s.send();
        s.setSge(1, 2, 3);
        assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, s::complete).errno(), "INIT cannot post");
        assertEquals(List.of(), s.calls, "nothing is started on a QP that cannot post");
    }

    @Test
    void aType2BindMayChangeOnlyTheKeyBitsOfTheWindowsRkey() {
        MemoryWindow mw = mock(MemoryWindow.class);
        when(mw.type()).thenReturn(MwType.TYPE_2);
        when(mw.rkey()).thenReturn(0x1234_5601);
        MemoryRegion mr = mock(MemoryRegion.class);
        Recorder s = new Recorder(QpType.RC, Set.of(WrOpcode.BIND_MW), Set.of(mw, mr));
        s.begin();
        s.bindMw(mw, 0x1234_5602, new MwBindInfo(mr, 0, 64, 0));
        s.complete();
        assertEquals("emit BIND_MW id=0 flags=0", s.calls.get(1));
        s.begin();
        s.bindMw(mw, 0x1234_5702, new MwBindInfo(mr, 0, 64, 0));
        assertTrue(assertThrows(VerbsException.class, s::complete).getMessage().contains("low 8 bits"));
    }

    @Test
    void onlyTheOwnerThreadMayUseTheOpenSession() throws Exception {
        Recorder s = rc(WrOpcode.SEND);
        s.begin();
        s.send();
        Throwable other = CompletableFuture.supplyAsync(() -> {
            try {
                s.complete();
                return null;
            } catch (Throwable t) {
                return t;
            }
        }).get();
        assertTrue(other instanceof IllegalStateException, String.valueOf(other));
        assertTrue(s.isActive());
        assertThrows(IllegalStateException.class, s::begin, "the owner opening it twice");
        s.setSge(1, 2, 3);
        s.complete();
        assertEquals(List.of("start", "emit SEND id=0 flags=0 sge=1/2/3", "complete"), s.calls);
        assertThrows(IllegalStateException.class, s::complete, "complete() on a closed session");
    }

    @Test
    void badJavaArgumentsThrowAtOnceAndLeaveTheBatchAsItWas() {
        Recorder s = rc(WrOpcode.SEND);
        s.begin();
        s.send();
        assertThrows(NullPointerException.class, () -> s.setSgeList(null, 0));
        assertThrows(IllegalArgumentException.class, () -> s.setSgeList(new Sge[1], 2));
        assertThrows(NullPointerException.class, () -> s.setSgeList(new Sge[1], 1));
        Arena a = Arena.ofConfined();
        MemorySegment gone = a.allocate(4);
        a.close();
        assertThrows(IllegalStateException.class, () -> s.setInlineData(gone));
        s.setSge(1, 2, 3);
        s.complete();
        assertEquals("emit SEND id=0 flags=0 sge=1/2/3", s.calls.get(1));
    }
}
