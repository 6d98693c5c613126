package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Device;
import org.verbs4j.DeviceAttributes;
import org.verbs4j.Gid;
import org.verbs4j.PortAttributes;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.provider.nativecommon.CapabilityProbe;
import org.verbs4j.spi.support.AbstractVerbsObject;
import org.verbs4j.spi.support.Arguments;

/**
 * What the open devices, {@code struct ibv_context}, of both native providers share: the queries, the port
 * check, the capabilities, the creation of protection domains and completion queues, and the CQ arguments of
 * QP creation. {@code FfmContext} and
 * {@code JnrContext} extend it with how they find the context's ops, keep its objects and read its async events
 * (issue 12: the rest of the context is still theirs).
 *
 * @see "ibv_open_device(3)"
 */
public abstract class NativeContext extends AbstractVerbsObject implements NativeContextSupport {
    private final Device device;
    private final String providerName;
    private volatile DeviceAttributes deviceAttributes;
    private volatile Capabilities capabilities;

    /**
     * A context of {@code device}.
     *
     * @param device the device it was opened on
     * @param providerName the provider's name, for the capability probe
     */
    protected NativeContext(Device device, String providerName) {
        super("Context", null);
        this.device = device;
        this.providerName = providerName;
    }

    /** {@return whether CQs are created with {@code ibv_create_cq_ex} where the device has it} */
    protected abstract boolean extendedCq();

    @Override
    public final Device device() {
        checkOpen();
        return device;
    }

    @Override
    public final DeviceAttributes queryDevice() {
        checkOpen();
        DeviceAttributes d = NativeQueries.queryDevice(this);
        deviceAttributes = d;
        return d;
    }

    /** {@return the attributes of the last {@link #queryDevice}, queried now if there was none} */
    public final DeviceAttributes cachedDeviceAttributes() {
        DeviceAttributes d = deviceAttributes;
        return d != null ? d : queryDevice();
    }

    @Override
    public final void checkPort(int portNum) {
        int ports = cachedDeviceAttributes().physPortCnt();
        if (portNum < 1 || portNum > ports) {
            throw new IllegalArgumentException("device " + device.name() + " has ports 1.." + ports + ", not "
                    + portNum);
        }
    }

    @Override
    public final PortAttributes queryPort(int portNum) {
        checkOpen();
        checkPort(portNum);
        return NativeQueries.queryPort(this, portNum);
    }

    @Override
    public final Gid queryGid(int portNum, int index) {
        checkOpen();
        checkPort(portNum);
        Arguments.gidIndex(portNum, index, queryPort(portNum).gidTblLen());
        return NativeQueries.queryGid(this, portNum, index);
    }

    @Override
    public final Capabilities capabilities() {
        checkOpen();
        Capabilities c = capabilities;
        if (c == null) {
            synchronized (this) {
                c = capabilities;
                if (c == null) {
                    c = CapabilityProbe.probe(
                            new NativeDeviceFacts(this, providerName, rdmaCoreVersion(), deviceCapFlagsEx()));
                    capabilities = c;
                }
            }
        }
        return c;
    }

    @Override
    public final ProtectionDomain allocPd() {
        return NativeProtectionDomain.alloc(this);
    }

    @Override
    public final AbstractVerbsObject siblingCq(Object cq, String what) {
        return sibling(cq, NativeCompletionQueue.class, what);
    }

    @Override
    public final long cqHandle(AbstractVerbsObject cq) {
        return ((NativeCompletionQueue) cq).handle();
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        return NativeCompletionQueue.create(this, cqe, channel, compVector, extendedCq());
    }
}
