package org.verbs4j.provider.nativecommon.internal;

import java.util.function.BooleanSupplier;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.VerbsException;

/**
 * A device libibverbs listed, of either native provider. It keeps only the name and the GUID, because an
 * {@code ibv_device} pointer lives only as long as its list; {@link #open()} lists again and opens the device of
 * the same name through the binding ({@link IbverbsBinding#openDevice}). The provider's {@code ServiceLoader}
 * class lists the devices and makes one of these for each, with its binding.
 *
 * @see "ibv_get_device_list(3)"
 * @see "ibv_open_device(3)"
 */
public final class NativeDevice implements Device {
    private final String providerName;
    private final IbverbsBinding binding;
    private final String name;
    private final long guid;
    private final int index;
    private final BooleanSupplier extendedCq;

    /**
     * A listed device.
     *
     * @param providerName the provider's name ({@code "ffm"}, {@code "jnr"})
     * @param binding the provider's binding
     * @param name the device's name
     * @param guid its node GUID, in host byte order
     * @param index its kernel index ({@code ibv_get_device_index}), or -1
     * @param extendedCq whether CQs are created with {@code ibv_create_cq_ex} where the device has it, asked at
     *     each creation
     */
    public NativeDevice(String providerName, IbverbsBinding binding, String name, long guid, int index,
            BooleanSupplier extendedCq) {
        this.providerName = providerName;
        this.binding = binding;
        this.name = name;
        this.guid = guid;
        this.index = index;
        this.extendedCq = extendedCq;
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
    public int index() {
        return index;
    }

    /**
     * Opens the device.
     *
     * @return the open context
     * @throws VerbsException if {@code ibv_get_device_list} or {@code ibv_open_device} fails, {@code ENODEV} if
     *     no device of this name is listed any more
     */
    @Override
    public Context open() {
        long ctx = binding.openDevice(name);
        NativeErrors.check(ctx, "ibv_open_device", name);
        return new NativeContext(this, providerName, binding, ctx, extendedCq);
    }

    @Override
    public String toString() {
        return providerName + " device " + name;
    }
}
