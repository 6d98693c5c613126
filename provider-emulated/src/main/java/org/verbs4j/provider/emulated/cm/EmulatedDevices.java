package org.verbs4j.provider.emulated.cm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.verbs4j.Device;
import org.verbs4j.provider.emulated.verbs.EmulatedDevice;
import org.verbs4j.provider.emulated.wire.RoceConfig;
import org.verbs4j.provider.emulated.wire.RoceEndpoint;

/**
 * The JVM's emulated devices, created on first use: {@code emu0..emu(N-1)} in the JVM, then a wire device
 * {@code roceN} for each address of {@link RoceConfig}, each with the CM agent that answers on its QP1. They are
 * assembled here, above the verbs objects and the wire transport, because a wire device needs both and its agent,
 * and the connection manager resolves addresses over the list.
 */
public final class EmulatedDevices {
    /** The system property that sets the number of in-JVM devices. */
    static final String COUNT_PROPERTY = "verbs4j.emulated.devices";

    private static final Map<EmulatedDevice, CmAgent> AGENTS = new ConcurrentHashMap<>();
    private static volatile List<Device> all;

    private EmulatedDevices() {}

    /** The JVM's emulated devices, created on first call. */
    public static List<Device> all() {
        List<Device> list = all;
        if (list == null) {
            synchronized (EmulatedDevices.class) {
                list = all;
                if (list == null) {
                    int n = count();
                    List<Device> devices = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        devices.add(EmulatedDevice.inJvm(i));
                    }
                    List<RoceEndpoint> roce = RoceEndpoint.bindAll(RoceConfig.configured());
                    for (int i = 0; i < roce.size(); i++) {
                        RoceEndpoint endpoint = roce.get(i);
                        EmulatedDevice d = EmulatedDevice.wire(n + i, i, endpoint);
                        CmAgent agent = new CmAgent(endpoint, d);
                        AGENTS.put(d, agent);
                        endpoint.start(d, agent);
                        devices.add(d);
                    }
                    all = list = List.copyOf(devices);
                }
            }
        }
        return list;
    }

    /** {@return how the CM messages of the ids on {@code d} travel: the wire device's CM agent, or in this JVM} */
    static CmExchange cmExchange(EmulatedDevice d) {
        CmAgent agent = AGENTS.get(d);
        return agent != null ? agent : InJvmCmExchange.INSTANCE;
    }

    private static int count() {
        String v = System.getProperty(COUNT_PROPERTY, "1").trim();
        try {
            int n = Integer.parseInt(v);
            if (n < 1 || n > 256) {
                throw new IllegalArgumentException(COUNT_PROPERTY + " is 1..256, not " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(COUNT_PROPERTY + " must be a number of devices, not '" + v + "'", e);
        }
    }
}
