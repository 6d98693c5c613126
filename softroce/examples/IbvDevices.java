// Guest-step example for softroce/run: lists the verbs devices through
// libibverbs with the FFM API (no project code needed) and writes the result
// as JUnit XML where the harness collects it. Run by java-devices.sh.
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public class IbvDevices {
    public static void main(String[] args) throws Throwable {
        String wanted = System.getenv().getOrDefault("VERBS4J_RDMA_DEVICE", "rxe0");
        long t0 = System.nanoTime();
        List<String> names = new ArrayList<>();
        Linker linker = Linker.nativeLinker();
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup ibv = SymbolLookup.libraryLookup("libibverbs.so.1", arena);
            MethodHandle getList = linker.downcallHandle(ibv.findOrThrow("ibv_get_device_list"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            MethodHandle getName = linker.downcallHandle(ibv.findOrThrow("ibv_get_device_name"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            MethodHandle freeList = linker.downcallHandle(ibv.findOrThrow("ibv_free_device_list"),
                    FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) getList.invokeExact(count);
            if (list.address() == 0) {
                throw new IllegalStateException("ibv_get_device_list returned NULL");
            }
            int n = count.get(ValueLayout.JAVA_INT, 0);
            MemorySegment array = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
            for (int i = 0; i < n; i++) {
                MemorySegment dev = array.getAtIndex(ValueLayout.ADDRESS, i);
                MemorySegment name = (MemorySegment) getName.invokeExact(dev);
                names.add(name.reinterpret(64).getString(0));
            }
            freeList.invokeExact(list);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        boolean ok = names.contains(wanted);
        System.out.println("devices: " + names + (ok ? "" : " (missing " + wanted + ")"));

        String dir = System.getenv("VERBS4J_JUNIT_DIR");
        if (dir != null) {
            String failure = ok ? "" : "<failure message=\"" + wanted + " not listed: " + names + "\"/>";
            String xml = """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <testsuite name="IbvDevices" tests="1" failures="%d" errors="0" skipped="0">
                      <testcase classname="IbvDevices" name="listsDevice" time="%.3f">%s</testcase>
                    </testsuite>
                    """.formatted(ok ? 0 : 1, secs, failure);
            Files.writeString(Path.of(dir, "TEST-IbvDevices.xml"), xml);
        }
        System.exit(ok ? 0 : 1);
    }
}
