package org.verbs4j.provider.nativecommon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.Errno;
import org.verbs4j.ProviderUnavailableException;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException.Reason;

class IbverbsAvailabilityTest {
    private static final String SWITCH = "verbs4j.test.availability.disabled";

    @Test
    @DisplayName("the loader runs once, on first use, and its library is kept")
    void loadsOnce() {
        AtomicInteger calls = new AtomicInteger();
        IbverbsAvailability<String> a = new IbverbsAvailability<>("test", SWITCH, () -> "lib" + calls.incrementAndGet());
        assertEquals(0, calls.get(), "the constructor loads nothing");
        assertTrue(a.isAvailable());
        assertNull(a.unavailabilityCause());
        assertEquals("lib1", a.library());
        assertEquals("lib1", a.library());
        assertEquals(1, calls.get());
    }

    @Test
    @DisplayName("a failed load is the cause, kept, and library() throws it attached")
    void failureIsTheCause() {
        AtomicInteger calls = new AtomicInteger();
        IbverbsAvailability<String> a = new IbverbsAvailability<>("test", SWITCH, () -> {
            calls.incrementAndGet();
            throw IbverbsAvailability.noDevice(44);
        });
        Throwable cause = a.unavailabilityCause();
        IbverbsUnavailableException e = assertInstanceOf(IbverbsUnavailableException.class, cause);
        assertEquals(Reason.NO_DEVICE, e.reason());
        assertTrue(e.getMessage().startsWith("libibverbs (rdma-core 44) found no RDMA device"), e.getMessage());
        assertFalse(a.isAvailable());
        ProviderUnavailableException thrown = assertThrows(ProviderUnavailableException.class, a::library);
        assertSame(cause, thrown.getCause());
        assertTrue(thrown.getMessage().contains("'test' is unavailable"), thrown.getMessage());
        assertEquals(1, calls.get());
    }

    @Test
    @DisplayName("the kill switch makes a loaded library unavailable and names its property")
    void killSwitch() {
        IbverbsAvailability<String> a = new IbverbsAvailability<>("test", SWITCH, () -> "lib");
        System.setProperty(SWITCH, "true");
        try {
            IbverbsUnavailableException e = assertInstanceOf(IbverbsUnavailableException.class,
                    a.unavailabilityCause());
            assertEquals(Reason.DISABLED, e.reason());
            assertTrue(e.getMessage().contains("-D" + SWITCH + "=true"), e.getMessage());
            assertFalse(a.isAvailable());
            assertEquals("lib", a.library(), "what was loaded stays usable for the objects already made");
        } finally {
            System.clearProperty(SWITCH);
        }
        assertTrue(a.isAvailable());
    }

    @Test
    @DisplayName("a device list failing with ENOSYS means no kernel RDMA support; another errno is named")
    void deviceListVerdicts() {
        IbverbsUnavailableException nosys = IbverbsAvailability.deviceListFailed(0, Errno.ENOSYS);
        assertEquals(Reason.KERNEL_WITHOUT_RDMA, nosys.reason());
        assertTrue(nosys.getMessage().contains("ENOSYS"), nosys.getMessage());
        assertTrue(nosys.getMessage().startsWith("libibverbs (rdma-core of unknown version)"), nosys.getMessage());
        IbverbsUnavailableException perm = IbverbsAvailability.deviceListFailed(44, Errno.EPERM);
        assertEquals(Reason.DEVICE_LIST_FAILED, perm.reason());
        assertTrue(perm.getMessage().endsWith("failed with EPERM"), perm.getMessage());
    }

    @Test
    @DisplayName("the rdma-core release for messages comes from the mapped library's file name")
    void mappedVersionComesFromTheFileName() throws Exception {
        Path lib = Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        assumeTrue(Files.exists(lib), "libibverbs is not installed");
        String file = lib.toRealPath().getFileName().toString(); // libibverbs.so.1.14.44.0
        assumeTrue(file.matches("libibverbs\\.so\\.1\\.\\d+\\.\\d+\\.\\d+"), file);
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(lib, arena);
            assertEquals(Integer.parseInt(file.split("\\.")[4]), IbverbsAvailability.mappedRdmaCoreVersion());
        }
    }
}
