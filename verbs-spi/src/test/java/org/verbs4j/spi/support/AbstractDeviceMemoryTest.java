package org.verbs4j.spi.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.ReregFlags;
import org.verbs4j.VerbsException;

@DisplayName("AbstractDeviceMemory and regions of device memory: the range, liveness and lifetime rules of ibv_alloc_dm")
class AbstractDeviceMemoryTest {
    private static final int LENGTH = 256;
    private final Owner owner = new Owner();
    private final Context context = proxy(Context.class);
    private final ProtectionDomain pd = proxy(ProtectionDomain.class);

    @AfterEach
    void closeOwner() {
        owner.close();
    }

    private static <T> T proxy(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(AbstractDeviceMemoryTest.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                }));
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

    /** A buffer whose device is a byte array. */
    private final class Memory extends AbstractDeviceMemory {
        final byte[] device = new byte[LENGTH];
        int copies;

        Memory() {
            super(owner, null, context, LENGTH);
            register();
        }

        @Override
        protected void toDevice(long dmOffset, MemorySegment source) {
            copies++;
            MemorySegment.copy(source, 0, MemorySegment.ofArray(device), dmOffset, source.byteSize());
        }

        @Override
        protected void fromDevice(long dmOffset, MemorySegment destination) {
            copies++;
            MemorySegment.copy(MemorySegment.ofArray(device), dmOffset, destination, 0, destination.byteSize());
        }

        @Override
        protected int destroy() {
            return 0;
        }
    }

    private final class DmRegion extends AbstractMemoryRegion {
        DmRegion(Memory dm, long length) {
            super(owner, null, pd, dm, length, AccessFlags.ZERO_BASED | AccessFlags.LOCAL_WRITE, 0);
            dependOn(owner);
            dependOnMemory();
            register();
        }

        @Override
        protected int lkeyValue() {
            return 1;
        }

        @Override
        protected int rkeyValue() {
            return 2;
        }

        @Override
        protected int rereg(int flags, ProtectionDomain pd, MemorySegment segment, int access) {
            throw new AssertionError("a region of device memory reached the device's re-registration");
        }

        @Override
        protected RegionTable regionsOf(ProtectionDomain pd) {
            throw new AssertionError("a region of device memory has no region table");
        }

        @Override
        protected int destroy() {
            return 0;
        }
    }

    @Test
    void copiesUpToTheLastByte() {
        Memory dm = new Memory();
        byte[] tail = {1, 2, 3, 4};
        dm.copyToDm(LENGTH - 4, MemorySegment.ofArray(tail));
        byte[] back = new byte[4];
        dm.copyFromDm(LENGTH - 4, MemorySegment.ofArray(back));
        assertArrayEquals(tail, back);
        dm.copyToDm(LENGTH, MemorySegment.ofArray(new byte[0]));
        assertEquals(3, dm.copies, "a copy of 0 bytes at the end is in range");
        assertEquals(LENGTH, dm.length());
        assertSame(context, dm.context());
    }

    @Test
    void refusesOutOfRangeCopiesBeforeTheDevice() {
        Memory dm = new Memory();
        MemorySegment four = MemorySegment.ofArray(new byte[4]);
        assertThrows(IllegalArgumentException.class, () -> dm.copyToDm(LENGTH - 3, four));
        assertThrows(IllegalArgumentException.class, () -> dm.copyFromDm(LENGTH - 3, four));
        assertThrows(IllegalArgumentException.class, () -> dm.copyToDm(-1, four));
        assertThrows(IllegalArgumentException.class, () -> dm.copyToDm(Long.MAX_VALUE - 2, four));
        assertThrows(IllegalArgumentException.class, () -> dm.copyToDm(LENGTH + 1, MemorySegment.ofArray(new byte[0])));
        assertThrows(IllegalArgumentException.class, () -> dm.copyFromDm(0, four.asReadOnly()));
        assertThrows(NullPointerException.class, () -> dm.copyToDm(0, null));
        assertThrows(NullPointerException.class, () -> dm.copyFromDm(0, null));
        Arena arena = Arena.ofConfined();
        MemorySegment freed = arena.allocate(4);
        arena.close();
        assertThrows(IllegalStateException.class, () -> dm.copyToDm(0, freed));
        assertThrows(IllegalStateException.class, () -> dm.copyFromDm(0, freed));
        assertEquals(0, dm.copies, "no refused copy reaches the device");
    }

    @Test
    void aClosedBufferRefusesEverything() {
        Memory dm = new Memory();
        dm.close();
        assertTrue(dm.isClosed());
        assertThrows(IllegalStateException.class, () -> dm.copyToDm(0, MemorySegment.ofArray(new byte[4])));
        assertThrows(IllegalStateException.class, () -> dm.copyFromDm(0, MemorySegment.ofArray(new byte[4])));
        assertThrows(IllegalStateException.class, dm::length);
        assertThrows(IllegalStateException.class, dm::context);
        assertEquals(0, dm.copies);
    }

    @Test
    void aRegionKeepsItsBufferAndHasNoHostMemory() {
        Memory dm = new Memory();
        DmRegion mr = new DmRegion(dm, 128);
        assertEquals(0, mr.address(), "zero-based");
        assertEquals(128, mr.length());
        assertThrows(UnsupportedOperationException.class, mr::segment);
        assertThrows(IllegalArgumentException.class, () -> mr.reregister(ReregFlags.CHANGE_ACCESS, null, null,
                AccessFlags.ZERO_BASED));
        VerbsException busy = assertThrows(VerbsException.class, dm::close);
        assertEquals(Errno.EBUSY, busy.errno());
        assertFalse(dm.isClosed());
        dm.copyToDm(0, MemorySegment.ofArray(new byte[] {9}));
        mr.close();
        dm.close();
        assertTrue(dm.isClosed());
        assertEquals(9, dm.device[0]);
    }

    @Test
    void argumentLimits() {
        Arguments.allocDm(1, 0);
        Arguments.allocDm(Long.MAX_VALUE, 63);
        assertThrows(IllegalArgumentException.class, () -> Arguments.allocDm(0, 0));
        assertThrows(IllegalArgumentException.class, () -> Arguments.allocDm(1, 64));
        assertThrows(IllegalArgumentException.class, () -> Arguments.allocDm(1, -1));
        int access = AccessFlags.ZERO_BASED | AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
        Arguments.deviceMemoryRegion(0, LENGTH, LENGTH, access);
        Arguments.deviceMemoryRegion(LENGTH - 1, 1, LENGTH, access);
        assertThrows(IllegalArgumentException.class, () -> Arguments.deviceMemoryRegion(LENGTH - 1, 2, LENGTH, access));
        assertThrows(IllegalArgumentException.class, () -> Arguments.deviceMemoryRegion(0, 0, LENGTH, access));
        assertThrows(IllegalArgumentException.class, () -> Arguments.deviceMemoryRegion(-1, 1, LENGTH, access));
        assertThrows(IllegalArgumentException.class,
                () -> Arguments.deviceMemoryRegion(0, 1, LENGTH, access & ~AccessFlags.ZERO_BASED));
        assertThrows(IllegalArgumentException.class,
                () -> Arguments.deviceMemoryRegion(0, 1, LENGTH, AccessFlags.ZERO_BASED | AccessFlags.REMOTE_WRITE));
        assertThrows(IllegalArgumentException.class, () -> Arguments.deviceMemoryRegion(1, Long.MAX_VALUE, LENGTH, access));
    }

    @Test
    void dmabufArgumentLimits() {
        int listed = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
                | AccessFlags.REMOTE_ATOMIC | AccessFlags.RELAXED_ORDERING;
        Arguments.dmabuf(0, 0, 1, listed);
        Arguments.dmabuf(3, Long.MAX_VALUE - 1, 1, 0);
        assertThrows(IllegalArgumentException.class, () -> Arguments.dmabuf(-1, 0, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> Arguments.dmabuf(3, -1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> Arguments.dmabuf(3, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> Arguments.dmabuf(3, Long.MAX_VALUE, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> Arguments.dmabuf(3, 0, 1, AccessFlags.ZERO_BASED));
        assertThrows(IllegalArgumentException.class, () -> Arguments.dmabuf(3, 0, 1, AccessFlags.MW_BIND));
    }
}
