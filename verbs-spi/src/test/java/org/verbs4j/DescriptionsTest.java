package org.verbs4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Each enum's {@code description()} is the text the installed libibverbs (or librdmacm) gives for its value, read
 * from the distribution's {@code libibverbs.so.1} and {@code librdmacm.so.1} by path (never a test library on {@code LD_LIBRARY_PATH}), so the tables
 * cannot drift from rdma-core's.
 */
class DescriptionsTest {
    private static final Path LIBIBVERBS = Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
    private static final Path LIBRDMACM = Path.of("/usr/lib/x86_64-linux-gnu/librdmacm.so.1");

    private static <E extends Enum<E>> void matches(String function, E[] values, Function<E, String> description) {
        matches(LIBIBVERBS, function, values, description);
    }

    private static <E extends Enum<E>> void matches(Path library, String function, E[] values,
            Function<E, String> description) {
        assumeTrue(Files.exists(library), "rdma-core's " + library.getFileName() + " is not installed");
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle str = Linker.nativeLinker().downcallHandle(
                    SymbolLookup.libraryLookup(library, arena).find(function).orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            for (E e : values) {
                MemorySegment text = (MemorySegment) str.invokeExact(e.ordinal());
                assertEquals(text.reinterpret(256).getString(0), description.apply(e), function + "(" + e + ")");
            }
        } catch (Throwable t) {
            throw t instanceof AssertionError a ? a : new AssertionError(t);
        }
    }

    @Test
    void wcStatusAsIbvWcStatusStr() {
        matches("ibv_wc_status_str", WcStatus.values(), WcStatus::description);
    }

    @Test
    void portStateAsIbvPortStateStr() {
        matches("ibv_port_state_str", PortState.values(), PortState::description);
    }

    @Test
    void asyncEventTypeAsIbvEventTypeStr() {
        matches("ibv_event_type_str", AsyncEventType.values(), AsyncEventType::description);
    }

    @Test
    void cmEventTypeAsRdmaEventStr() {
        matches(LIBRDMACM, "rdma_event_str", CmEventType.values(), CmEventType::description);
    }
}
