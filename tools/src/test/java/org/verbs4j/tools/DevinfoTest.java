package org.verbs4j.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** devinfo lists every provider with its state and cause, then what ibv_devinfo shows per device. */
class DevinfoTest {
    @Test
    void listsEveryProviderWithCauseAndTheChoice() {
        Run r = Run.of("devinfo");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        String out = r.out();
        assertTrue(Pattern.compile("(?m)^\\temulated\\s+priority\\s+-?\\d+\\s+available\\s+<- chosen$").matcher(out)
                .find(), out);
        // No RDMA here: the native providers are listed as unavailable with the reason.
        assertTrue(Pattern.compile("(?m)^\\tffm\\s+priority\\s+-?\\d+\\s+unavailable: \\S.*$").matcher(out).find(), out);
        assertTrue(Pattern.compile("(?m)^\\tjnr\\s+priority\\s+-?\\d+\\s+unavailable: \\S.*$").matcher(out).find(), out);
        assertTrue(out.contains("chosen: emulated ("), out);
    }

    @Test
    void showsWhatIbvDevinfoShows() {
        Run r = Run.of("devinfo", "--provider", "emulated");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        String out = r.out();
        for (String field : new String[] {"hca_id:\t", "fw_ver:", "node_guid:", "vendor_id:", "vendor_part_id:",
            "phys_port_cnt:", "port:\t1", "state:", "max_mtu:", "active_mtu:", "link_layer:", "capabilities:",
            "qp_types:", "max_inline_data:", "atomics:"}) {
            assertTrue(out.contains(field), () -> field + " missing from\n" + out);
        }
        assertTrue(Pattern.compile("node_guid:\\s+[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}").matcher(out).find(),
                out);
        assertTrue(!out.contains("GID["), "GIDs only with -v");
    }

    @Test
    void verboseAddsGidsAndLimits() {
        Run r = Run.of("devinfo", "-v", "--provider", "emulated");
        assertEquals(Main.EXIT_OK, r.exitCode(), r::err);
        assertTrue(Pattern.compile("GID\\[\\s*0\\]:\\s+[0-9a-f]{4}(:[0-9a-f]{4}){7}").matcher(r.out()).find(), r.out());
        assertTrue(r.out().contains("max_qp_wr:"), r.out());
    }
}
