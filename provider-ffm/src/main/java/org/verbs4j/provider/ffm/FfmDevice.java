package org.verbs4j.provider.ffm;

import java.lang.foreign.MemorySegment;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.ffm.internal.Ibverbs;

/** A libibverbs device, {@code struct ibv_device}, from the device list that is kept for the JVM's life. */
final class FfmDevice implements Device {
    private final MemorySegment device;
    private final int rdmaCoreVersion;
    private final String name;
    private final long guid;

    FfmDevice(MemorySegment device, int rdmaCoreVersion) {
        this.device = device;
        this.rdmaCoreVersion = rdmaCoreVersion;
        this.name = Ibverbs.ibv_get_device_name(device).reinterpret(64).getString(0);
        this.guid = Long.reverseBytes(Ibverbs.ibv_get_device_guid(device));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long guid() {
        return guid;
    }

    @Override
    public Context open() {
        MemorySegment ctx = Ibverbs.ibv_open_device(device);
        if (ctx.address() == 0) {
            throw new VerbsException("ibv_open_device", Ibverbs.errnoOf(-1), name);
        }
        return new FfmContext(this, ctx, rdmaCoreVersion);
    }

    @Override
    public String toString() {
        return "FfmDevice[" + name + "]";
    }
}
