package org.verbs4j.provider.nativecommon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Context;
import org.verbs4j.Device;
import org.verbs4j.Errno;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.IbverbsHandle;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;

/**
 * The one provider shell, through a fourth provider that supplies only its loader and binding
 * ({@link FourthIbverbsProvider}): availability, the device list, the kill switch and the connection manager behave
 * as the shell states, the same as for {@code ffm} and {@code jnr}.
 */
class IbverbsProviderShellTest {
    @AfterEach
    void reset() {
        FourthIbverbsProvider.LISTED.clear();
        FourthIbverbsProvider.LISTED.add(new IbverbsProviderShell.ListedDevice("rxe0", 0x1234));
        FourthIbverbsProvider.listErrno = 0;
        System.clearProperty("verbs4j.fourth.disabled");
    }

    @Test
    @DisplayName("a fourth provider is available, names itself, and opens its devices through its binding")
    void fourthProviderWorks() {
        FourthIbverbsProvider p = new FourthIbverbsProvider();
        assertEquals("fourth", p.name());
        assertEquals(50, p.priority());
        assertTrue(p.isAvailable(), () -> String.valueOf(p.unavailabilityCause()));
        Device d = p.devices().get(0);
        assertEquals("rxe0", d.name());
        assertEquals(0x1234, d.guid());
        try (Context ctx = d.open()) {
            assertSame(d, ctx.device());
            assertEquals("ibv_context", ctx.unwrap(IbverbsHandle.class).struct());
            assertEquals("fourth", ctx.unwrap(IbverbsHandle.class).providerName());
        }
    }

    @Test
    @DisplayName("availability is decided once per JVM and provider class; the device list is read at each call")
    void policies() {
        FourthIbverbsProvider a = new FourthIbverbsProvider();
        assertTrue(a.isAvailable());
        int loads = FourthIbverbsProvider.loads;
        FourthIbverbsProvider b = new FourthIbverbsProvider();
        assertTrue(b.isAvailable());
        assertEquals(loads, FourthIbverbsProvider.loads, "a second instance loads nothing again");
        FourthIbverbsProvider.LISTED.add(new IbverbsProviderShell.ListedDevice("rxe1", 0x5678));
        assertEquals(List.of("rxe0", "rxe1"), b.devices().stream().map(Device::name).toList(),
                "a device added after the first call shows");
        FourthIbverbsProvider.listErrno = Errno.EPERM;
        VerbsException e = assertThrows(VerbsException.class, b::devices);
        assertEquals(Errno.EPERM, e.errno());
        assertTrue(e.getMessage().contains("/dev/infiniband"), e.getMessage());
    }

    @Test
    @DisplayName("the kill switch verbs4j.<name>.disabled is read at each call and is the cause")
    void killSwitch() {
        FourthIbverbsProvider p = new FourthIbverbsProvider();
        System.setProperty("verbs4j.fourth.disabled", "true");
        assertFalse(p.isAvailable());
        IbverbsUnavailableException cause = assertInstanceOf(IbverbsUnavailableException.class,
                p.unavailabilityCause());
        assertEquals(Reason.DISABLED, cause.reason());
        assertThrows(ProviderUnavailableException.class, p::devices);
        System.clearProperty("verbs4j.fourth.disabled");
        assertTrue(p.isAvailable());
    }

    @Test
    @DisplayName("a provider that binds no librdmacm has no connection manager, and says so")
    void noConnectionManager() {
        FourthIbverbsProvider p = new FourthIbverbsProvider();
        assertFalse(p.hasConnectionManager());
        assertThrows(UnsupportedOperationException.class, p::connectionManager);
    }

    /** Lists no device. */
    static final class NoDevice extends IbverbsProviderShell {
        NoDevice() {
            super("nodevice", 1);
        }

        @Override
        protected Library loadLibrary() {
            return new Library() {
                @Override
                public IbverbsBinding binding() {
                    return new NativeObjectModelTest.Binding();
                }

                @Override
                public List<ListedDevice> listDevices() {
                    return List.of();
                }
            };
        }
    }

    /** Whose device list fails with ENOSYS. */
    static final class NoKernel extends IbverbsProviderShell {
        NoKernel() {
            super("nokernel", 1);
        }

        @Override
        protected Library loadLibrary() {
            return new Library() {
                @Override
                public IbverbsBinding binding() {
                    return new NativeObjectModelTest.Binding();
                }

                @Override
                public List<ListedDevice> listDevices() {
                    throw new VerbsException("ibv_get_device_list", Errno.ENOSYS, null);
                }
            };
        }
    }

    /** Whose library is missing. */
    static final class Missing extends IbverbsProviderShell {
        Missing() {
            super("missing", 1);
        }

        @Override
        protected Library loadLibrary() {
            throw new IbverbsUnavailableException(Reason.LIBRARY_MISSING, "not installed", null);
        }
    }

    @Test
    @DisplayName("the verdicts are the shell's: no device, a kernel without RDMA, a missing library")
    void verdicts() {
        assertEquals(Reason.NO_DEVICE, reason(new NoDevice()));
        assertEquals(Reason.KERNEL_WITHOUT_RDMA, reason(new NoKernel()));
        assertEquals(Reason.LIBRARY_MISSING, reason(new Missing()));
        assertThrows(ProviderUnavailableException.class, () -> new NoDevice().devices());
    }

    private static Reason reason(IbverbsProviderShell p) {
        assertFalse(p.isAvailable());
        return assertInstanceOf(IbverbsUnavailableException.class, p.unavailabilityCause()).reason();
    }
}
