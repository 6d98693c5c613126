package org.verbs4j.tools.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.tck.TckRunner;
import picocli.CommandLine;

@DisplayName("verbs4j tck: the flags reach the runner's options")
class TckOptionsTest {
    private static TckRunner.Options parse(String... args) {
        TckCommand c = new TckCommand();
        new CommandLine(c).parseArgs(args);
        return c.options("emulated", Set.of("CQ"));
    }

    @Test
    void devicePeerDeviceAndReports() {
        TckRunner.Options o = parse("-d", "roce0", "--peer-dev", "roce1", "--reports", "r");
        assertEquals("roce0", o.deviceName());
        assertEquals("roce1", o.peerDeviceName());
        assertEquals(Path.of("r", "emulated"), o.reportDir());
        assertEquals(Set.of("CQ"), o.areas());
        assertEquals(-1, o.gidIndex(), "the kit's default without -x");
        assertEquals(1, parse("-x", "1").gidIndex());
        assertEquals(3, parse("--gid-index", "3").gidIndex());
    }

    @Test
    void withoutPeerDeviceThePairsStayOnOneDevice() {
        TckRunner.Options o = parse();
        assertNull(o.deviceName());
        assertNull(o.peerDeviceName());
        assertNull(o.reportDir());
    }
}
