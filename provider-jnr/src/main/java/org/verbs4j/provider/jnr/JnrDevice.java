package org.verbs4j.provider.jnr;

import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.jnr.internal.Ibverbs;
import org.verbs4j.provider.jnr.internal.NativeLibraries;
import org.verbs4j.provider.jnr.internal.NativeMemory;

/**
 * A device libibverbs listed. It keeps only the name and GUID, because the {@code ibv_device} pointers
 * live only as long as the list; {@link #open()} lists again and opens the device of the same name.
 *
 * @see "ibv_get_device_list(3)"
 */
final class JnrDevice implements Device {
    private final NativeLibraries libs;
    private final String name;
    private final long guid;

    JnrDevice(NativeLibraries libs, String name, long guid) {
        this.libs = libs;
        this.name = name;
        this.guid = guid;
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
        Ibverbs ib = libs.ibverbs();
        long num = NativeMemory.allocate(4);
        try {
            long list = ib.ibv_get_device_list(num);
            if (list == 0) {
                throw new VerbsException("ibv_get_device_list", libs.lastErrno(), null);
            }
            try {
                int n = NativeMemory.getInt(num);
                for (int i = 0; i < n; i++) {
                    long dev = NativeMemory.getAddress(list + 8L * i);
                    if (name.equals(NativeMemory.getString(ib.ibv_get_device_name(dev)))) {
                        long ctx = ib.ibv_open_device(dev);
                        if (ctx == 0) {
                            throw new VerbsException("ibv_open_device", libs.lastErrno(), name);
                        }
                        return new JnrContext(libs, this, ctx);
                    }
                }
                throw new VerbsException("ibv_open_device", Errno.ENODEV, "device " + name + " is gone");
            } finally {
                ib.ibv_free_device_list(list);
            }
        } finally {
            NativeMemory.free(num);
        }
    }

    @Override
    public String toString() {
        return "jnr device " + name;
    }
}
