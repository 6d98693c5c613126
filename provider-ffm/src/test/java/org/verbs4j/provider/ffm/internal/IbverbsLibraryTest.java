package org.verbs4j.provider.ffm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.verbs4j.provider.nativecommon.IbverbsUnavailableException;

class IbverbsLibraryTest {
    @Test
    void theRdmaCoreVersionComesFromTheMappedLibrary() throws Exception {
        Path lib = Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        assumeTrue(Files.exists(lib), "libibverbs is not installed");
        try {
            IbverbsLibrary.load();
        } catch (IbverbsUnavailableException e) {
            assumeTrue(e.reason() != IbverbsUnavailableException.Reason.LIBRARY_MISSING, e.getMessage());
        }
        String file = lib.toRealPath().getFileName().toString(); // libibverbs.so.1.14.44.0
        int expected = Integer.parseInt(file.split("\\.")[4]);
        assertEquals(expected, IbverbsLibrary.rdmaCoreVersion());
    }
}
