package org.verbs4j.provider.emulated.verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;

import org.verbs4j.AccessFlags;
import org.verbs4j.AddressHandle;
import org.verbs4j.AhAttributes;
import org.verbs4j.Context;
import org.verbs4j.DeviceMemory;
import org.verbs4j.Errno;
import org.verbs4j.MemoryRegion;
import org.verbs4j.MemoryWindow;
import org.verbs4j.MrAdvice;
import org.verbs4j.MwType;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QueuePair;
import org.verbs4j.Sge;
import org.verbs4j.SharedReceiveQueue;
import org.verbs4j.SrqInitAttributes;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.emulated.engine.KeyTable;
import org.verbs4j.provider.emulated.engine.MemoryKey;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;
import org.verbs4j.spi.support.RegionTable;

/** A protection domain: the scope of regions, windows, address handles, QPs and SRQs. */
public final class EmulatedProtectionDomain extends AbstractVerbsObject implements ProtectionDomain {
    public final EmulatedContext context;
    /** The live regions, for checking the addresses of inline data posted with {@code postSend}. */
    final RegionTable regions = new RegionTable();
    /** The page size whose offsets a dma-buf region's iova and offset share, as the kernel checks them, bytes. */
    private static final long PAGE_SIZE = 4096;

    EmulatedProtectionDomain(EmulatedContext context) {
        super("ProtectionDomain", context, context.lock);
        this.context = context;
        register();
    }

    EmulatedDevice device() {
        return context.device;
    }

    @Override
    public Context context() {
        checkOpen();
        return context;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        checkOpen();
        Arguments.registrable(segment);
        return registerPastLifetimeRule(segment, access);
    }

    @Override
    public MemoryRegion registerDeviceMemory(DeviceMemory dm, long dmOffset, long length, int access) {
        checkOpen();
        Objects.requireNonNull(dm, "dm");
        EmulatedDeviceMemory memory = context.sibling(dm, EmulatedDeviceMemory.class, "the device memory");
        Arguments.deviceMemoryRegion(dmOffset, length, memory.length(), access);
        synchronized (context.lock) {
            context.checkOpen();
            memory.checkOpen();
            return new EmulatedMemoryRegion(this, memory, dmOffset, length, access);
        }
    }

    /**
     * {@code ibv_reg_dmabuf_mr}: the emulated device takes any file it can map as a dma-buf. It maps the range
     * through {@code /proc/self/fd}, into an arena the region owns and closes after its deregistration; the fd may be
     * closed once this returns.
     */
    @Override
    public MemoryRegion registerDmabuf(int fd, long offset, long length, long iova, int access) {
        checkOpen();
        Arguments.dmabuf(fd, offset, length, access);
        if (((offset ^ iova) & (PAGE_SIZE - 1)) != 0) {
            throw new VerbsException("ibv_reg_dmabuf_mr", Errno.EINVAL, "iova 0x" + Long.toHexString(iova)
                    + " and offset 0x" + Long.toHexString(offset) + " differ within a page");
        }
        if (length > device().attributes().maxMrSize()) {
            throw new VerbsException("ibv_reg_dmabuf_mr", Errno.EINVAL, "region larger than max_mr_size");
        }
        Arena mapping = Arena.ofShared();
        try {
            MemorySegment memory;
            try (FileChannel file = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                if (offset + length > file.size()) {
                    throw new VerbsException("ibv_reg_dmabuf_mr", Errno.EINVAL, length + " bytes at offset " + offset
                            + " end past the " + file.size() + "-byte dma-buf");
                }
                memory = file.map(FileChannel.MapMode.READ_WRITE, offset, length, mapping);
            } catch (NoSuchFileException e) {
                throw new VerbsException("ibv_reg_dmabuf_mr", Errno.EBADF, "fd " + fd + " is not open");
            } catch (IOException | UnsupportedOperationException e) {
                throw new VerbsException("ibv_reg_dmabuf_mr", Errno.EINVAL, "fd " + fd + " cannot be mapped: " + e);
            }
            synchronized (context.lock) {
                context.checkOpen();
                return new EmulatedMemoryRegion(this, memory, mapping, access, iova);
            }
        } catch (RuntimeException | Error e) {
            mapping.close();
            throw e;
        }
    }

    /**
     * The registration past the argument and lifetime rules of {@link Arguments#registrable}: for
     * {@link #registerMemory(MemorySegment, int)}, and, for tests, a way to make the region over freed memory
     * that a failed deregistration under an arena's close would leave, so that the engine's own guard can be
     * tried.
     */
    public MemoryRegion registerPastLifetimeRule(MemorySegment segment, int access) {
        AccessFlags.validate(access);
        if ((access & AccessFlags.HUGETLB) != 0) {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, "the emulated device does not support HUGETLB registration");
        }
        if (segment.byteSize() > device().attributes().maxMrSize()) {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, "region larger than max_mr_size");
        }
        synchronized (context.lock) {
            context.checkOpen();
            EmulatedMemoryRegion mr = new EmulatedMemoryRegion(this, segment, access);
            regions.add(segment);
            return mr;
        }
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        checkOpen();
        Objects.requireNonNull(type, "type");
        synchronized (context.lock) {
            context.checkOpen();
            EmulatedMemoryWindow mw = new EmulatedMemoryWindow(this, type);
            return mw;
        }
    }

    @Override
    public AddressHandle createAh(AhAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        String bad = checkAv(attributes);
        if (bad != null) {
            throw new VerbsException("ibv_create_ah", Errno.EINVAL, bad);
        }
        synchronized (context.lock) {
            context.checkOpen();
            EmulatedAddressHandle ah = new EmulatedAddressHandle(this, attributes);
            return ah;
        }
    }

    /** What is wrong with an address vector for this device, or null. */
    static String checkAv(AhAttributes av) {
        if (av.portNum() != 1) {
            return "the emulated device has only port 1, not " + av.portNum();
        }
        if (av.grh() == null) {
            return "the port's link layer is Ethernet (RoCE): the address vector needs a global route (GRH)";
        }
        if (av.grh().sgidIndex() >= EmulatedDevice.GID_TABLE_LENGTH) {
            return "sgid index " + av.grh().sgidIndex() + " is outside the GID table of "
                    + EmulatedDevice.GID_TABLE_LENGTH;
        }
        return null;
    }

    @Override
    public QueuePair createQp(QpInitAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        Arguments.pdQpType(attributes.type());
        synchronized (context.lock) {
            context.checkOpen();
            EmulatedQueuePair qp = new EmulatedQueuePair(this, attributes);
            return qp;
        }
    }

    @Override
    public SharedReceiveQueue createSrq(SrqInitAttributes attributes) {
        checkOpen();
        Objects.requireNonNull(attributes, "attributes");
        EmulatedSharedReceiveQueue.checkLimits("ibv_create_srq", attributes);
        synchronized (context.lock) {
            context.checkOpen();
            EmulatedSharedReceiveQueue srq = new EmulatedSharedReceiveQueue(this, attributes);
            return srq;
        }
    }

    /**
     * The device's memory is always present, so advice changes nothing once the ranges pass mlx5's checks: each
     * lkey a live on-demand region of this PD ({@code ENOENT} otherwise, and for PREFETCH_WRITE on a region without
     * LOCAL_WRITE), each range inside its region ({@code EFAULT}).
     */
    @Override
    public void adviseMr(MrAdvice advice, int flags, List<Sge> sgList) {
        checkOpen();
        Arguments.adviseMr(advice, flags, sgList);
        KeyTable keys = device().keys;
        synchronized (keys) {
            for (int i = 0; i < sgList.size(); i++) {
                Sge s = sgList.get(i);
                MemoryKey k = keys.lookup(s.lkey());
                boolean write = advice == MrAdvice.PREFETCH_WRITE;
                if (k == null || k.kind != MemoryKey.KIND_MR || k.pd != this || (k.access & AccessFlags.ON_DEMAND) == 0
                        || write && (k.access & AccessFlags.LOCAL_WRITE) == 0) {
                    throw new VerbsException("ibv_advise_mr", Errno.ENOENT, "SGE " + i + ": lkey 0x"
                            + Integer.toHexString(s.lkey()) + " is not a live" + (write ? " writable" : "")
                            + " ON_DEMAND region of this PD");
                }
                if (k.offsetOf(s.addr(), Integer.toUnsignedLong(s.length())) < 0) {
                    throw new VerbsException("ibv_advise_mr", Errno.EFAULT, "SGE " + i + ": " + s.length()
                            + " bytes at 0x" + Long.toHexString(s.addr()) + " are not all inside its region");
                }
            }
        }
    }

    /**
     * Invalidates a region's key or a type 2 window's key of this PD (LOCAL_INV, SEND_WITH_INV); false if the
     * key is not valid, belongs to another PD, or is a type 1 window's (which only a bind may change).
     */
    boolean invalidate(int rkey) {
        KeyTable keys = device().keys;
        synchronized (keys) {
            MemoryKey k = keys.lookup(rkey);
            if (k == null || k.pd != this || k.kind == MemoryKey.KIND_MW1) {
                return false;
            }
            if (k.kind == MemoryKey.KIND_MW2) {
                ((EmulatedMemoryWindow) k.owner).unbindLocked();
            } else {
                k.valid = false;
            }
            return true;
        }
    }

    @Override
    protected int destroy() {
        return 0;
    }
}
