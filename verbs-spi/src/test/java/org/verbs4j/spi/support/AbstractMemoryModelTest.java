package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.AccessFlags;
import org.verbs4j.Errno;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ReregFlags;
import org.verbs4j.VerbsException;

@DisplayName("AbstractMemoryRegion and AbstractMemoryWindow: one object model of regions and windows")
class AbstractMemoryModelTest {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment memory = arena.allocate(4096);
    private final RegionTable regions = new RegionTable();
    /** The context: an owner with no destroy work. */
    private final Owner context = new Owner();
    /** The protection domain the objects name; only its identity matters here. */
    private final ProtectionDomain pd = (ProtectionDomain) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {ProtectionDomain.class}, (proxy, method, args) -> {
                throw new UnsupportedOperationException(method.getName());
            });

    @AfterEach
    void closeArena() {
        context.close();
        arena.close();
    }

    private static final class Owner extends AbstractVerbsObject {
        Owner() {
            super("Context", null);
        }

        @Override
        protected int destroy() {
            return 0;
        }
    }

    private final class Region extends AbstractMemoryRegion {
        volatile int errno;
        volatile int reregErrno;
        volatile int reregs;

        Region(int access, long address) {
            super(context, null, pd, regions, memory, access, address);
            regions.add(memory);
            register();
        }

        @Override
        protected int lkeyValue() {
            return 0x1234;
        }

        @Override
        protected int rkeyValue() {
            return 0x5678;
        }

        @Override
        protected int rereg(int flags, ProtectionDomain pd, MemorySegment segment, int access) {
            reregs++;
            return reregErrno;
        }

        @Override
        protected RegionTable regionsOf(ProtectionDomain pd) {
            return regions;
        }

        @Override
        protected int destroy() {
            return errno;
        }
    }

    private final class Window extends AbstractMemoryWindow {
        volatile int rkey = 0x0300;

        Window(MwType type) {
            super(context, null, pd, type);
            register();
        }

        @Override
        protected int rkeyValue() {
            return rkey;
        }

        @Override
        protected int destroy() {
            return 0;
        }

        void bound(Region mr) {
            bindRegion(mr);
        }
    }

    @Test
    @DisplayName("a region hands out what it registered while open, and nothing once closed")
    void regionGetters() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE, memory.address());
        assertSame(pd, mr.pd());
        assertEquals(0x1234, mr.lkey());
        assertEquals(0x5678, mr.rkey());
        assertEquals(memory.address(), mr.address());
        assertEquals(4096, mr.length());
        assertSame(memory, mr.segment());
        assertEquals(AccessFlags.LOCAL_WRITE, mr.access());
        mr.close();
        assertThrows(IllegalStateException.class, mr::lkey);
        assertThrows(IllegalStateException.class, mr::rkey);
        assertThrows(IllegalStateException.class, mr::segment);
        assertThrows(IllegalStateException.class, mr::address);
    }

    @Test
    @DisplayName("closing before the memory is freed deallocates the windows bound to the region, then deregisters it; an unbound window stays (issue 26)")
    void closeBeforeFreeTakesBoundWindows() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND, memory.address());
        Window bound = new Window(MwType.TYPE_1);
        Window rebound = new Window(MwType.TYPE_1);
        Window idle = new Window(MwType.TYPE_1);
        bound.bound(mr);
        rebound.bound(mr);
        rebound.bound(null);
        VerbsException busy = assertThrows(VerbsException.class, mr::close);
        assertEquals(Errno.EBUSY, busy.errno(), "a plain close with a bound window");
        mr.closeBeforeFree();
        assertTrue(mr.isClosed(), "the region is deregistered");
        assertTrue(bound.isClosed(), "the window bound to it is deallocated first");
        assertFalse(rebound.isClosed(), "a window no longer bound to it stays");
        assertFalse(idle.isClosed(), "a window never bound to it stays");
    }

    @Test
    @DisplayName("a zero-based region reports the address its provider gave")
    void zeroBasedAddress() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE | AccessFlags.ZERO_BASED, 0);
        assertEquals(0, mr.address());
    }

    @Test
    @DisplayName("a re-registration moves the region to its new memory and table; bad input, bound windows (EBUSY) and a failed device change leave it as it was, but a failed change of translation deregisters it")
    void reregistration() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE, memory.address());
        MemorySegment other = arena.allocate(128);
        int remoteRead = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ;
        RegionLifetime.reowned(mr, ReregFlags.CHANGE_TRANSLATION | ReregFlags.CHANGE_ACCESS, null, other, remoteRead,
                arena);
        assertSame(other, mr.segment());
        assertEquals(other.address(), mr.address());
        assertEquals(128, mr.length());
        assertEquals(remoteRead, mr.access());
        assertFalse(regions.contains(memory.address(), 16), "the old memory left the table");
        assertTrue(regions.contains(other.address(), 128), "the new memory is in it");

        int before = mr.reregs;
        assertThrows(IllegalArgumentException.class, () -> mr.reregister(0, null, null, 0));
        assertThrows(IllegalArgumentException.class, () -> mr.reregister(8, null, null, 0));
        assertThrows(NullPointerException.class, () -> mr.reregister(ReregFlags.CHANGE_PD, null, null, 0));
        assertThrows(IllegalArgumentException.class, () -> mr.reregister(ReregFlags.CHANGE_TRANSLATION, null,
                MemorySegment.ofArray(new byte[64]), 0));
        assertThrows(IllegalArgumentException.class, () -> mr.reregister(ReregFlags.CHANGE_TRANSLATION, null,
                arena.allocate(64), 0));
        assertThrows(IllegalArgumentException.class, () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null, null, 1 << 30));
        assertThrows(IllegalArgumentException.class, () -> RegionLifetime.reowned(mr, ReregFlags.CHANGE_ACCESS, null,
                arena.allocate(64), 0, arena));
        Window mw = new Window(MwType.TYPE_1);
        mw.bound(mr);
        VerbsException busy = assertThrows(VerbsException.class,
                () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null, null, AccessFlags.LOCAL_WRITE));
        assertEquals(Errno.EBUSY, busy.errno());
        mw.bound(null);
        assertEquals(before, mr.reregs, "no refused re-registration reaches the device");

        mr.reregErrno = Errno.EINVAL;
        VerbsException e = assertThrows(VerbsException.class,
                () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null, null, AccessFlags.LOCAL_WRITE));
        assertEquals(Errno.EINVAL, e.errno());
        assertFalse(mr.isClosed());
        assertEquals(remoteRead, mr.access(), "a failed change of access leaves the region as it was");

        mr.reregErrno = Errno.EFAULT;
        MemorySegment third = arena.allocate(64);
        e = assertThrows(VerbsException.class, () -> RegionLifetime.reowned(mr, ReregFlags.CHANGE_TRANSLATION, null,
                third, 0, arena));
        assertEquals(Errno.EFAULT, e.errno());
        assertTrue(mr.isClosed(), "a failed change of translation deregisters the region");
        assertEquals(0, regions.size());
    }

    @Test
    @DisplayName("deregistration removes the segment from the region table; a failed one leaves region and table")
    void regionTable() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE, memory.address());
        assertTrue(regions.contains(memory.address(), 16));
        mr.errno = Errno.EINVAL;
        VerbsException e = assertThrows(VerbsException.class, mr::close);
        assertEquals(Errno.EINVAL, e.errno());
        assertFalse(mr.isClosed());
        assertTrue(regions.contains(memory.address(), 16));
        mr.errno = 0;
        mr.close();
        assertFalse(regions.contains(memory.address(), 16));
        assertEquals(0, regions.size());
    }

    @Test
    @DisplayName("a region with a window bound to it refuses to close with EBUSY until the window lets go")
    void boundWindowHoldsRegion() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND, memory.address());
        Window mw = new Window(MwType.TYPE_1);
        mw.bound(mr);
        VerbsException e = assertThrows(VerbsException.class, mr::close);
        assertEquals(Errno.EBUSY, e.errno());
        assertFalse(mr.isClosed());
        mw.bound(mr);
        mw.bound(null);
        mr.close();
        assertTrue(mr.isClosed());
    }

    @Test
    @DisplayName("closing a window releases the region it was bound to")
    void closedWindowReleasesRegion() {
        Region mr = new Region(AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND, memory.address());
        Window mw = new Window(MwType.TYPE_2);
        mw.bound(mr);
        mw.close();
        mr.close();
        assertTrue(mr.isClosed());
    }

    @Test
    @DisplayName("a window hands out its current rkey, and a type 2 bind may change only its low 8 bits")
    void windowRkey() {
        Window mw = new Window(MwType.TYPE_2);
        assertSame(pd, mw.pd());
        assertEquals(MwType.TYPE_2, mw.type());
        assertEquals(0x0300, mw.rkey());
        mw.rkey = 0x0342;
        assertEquals(0x0342, mw.rkey());
        assertTrue(mw.keepsIndex(0x03ff));
        assertFalse(mw.keepsIndex(0x0442));
        mw.close();
        assertThrows(IllegalStateException.class, mw::rkey);
        assertThrows(IllegalStateException.class, mw::type);
        assertThrows(IllegalStateException.class, () -> mw.keepsIndex(0x0300));
    }
}
