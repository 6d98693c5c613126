package org.verbs4j;

/**
 * An RDMA device, {@code struct ibv_device}, as listed by {@code ibv_get_device_list}. A provider's own calls
 * beyond this API are reached through {@link #unwrap(Class)}.
 *
 * @see "ibv_get_device_list(3)"
 */
public interface Device extends Unwrappable {
    /**
     * {@return the device's name, such as {@code mlx5_0}, {@code rxe0} or {@code emu0}}
     *
     * @see "ibv_get_device_name(3)"
     */
    String name();

    /**
     * {@return the 64-bit node GUID, in host order}
     *
     * @see "ibv_get_device_guid(3)"
     */
    long guid();

    /**
     * The device's index as the kernel assigns it, stable while the device exists; two devices of one provider never
     * share one. This default, for a provider that knows none, answers -1, as libibverbs does on a kernel without
     * device indexes.
     *
     * @return the index, 0 or more, or -1 if unknown
     * @see "ibv_get_device_index(3)"
     */
    default int index() {
        return -1;
    }

    /**
     * Opens the device.
     *
     * @return the open context; the caller closes it
     * @throws VerbsException {@code ENODEV} if it is gone, or the errno of {@code ibv_open_device}
     * @see "ibv_open_device(3)"
     */
    Context open();
}
