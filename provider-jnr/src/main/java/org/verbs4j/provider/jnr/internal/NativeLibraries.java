package org.verbs4j.provider.jnr.internal;

import com.kenai.jffi.MemoryIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * libibverbs and libc, loaded once through JNR-FFI with {@code failImmediately()}: a missing library or
 * symbol fails {@link #load()} with the cause, never a later call.
 */
public final class NativeLibraries {
    /** The SONAME loaded; the unversioned {@code libibverbs.so} exists only with the -dev package. */
    public static final String IBVERBS_SONAME = "libibverbs.so.1";

    private static final Pattern RDMA_CORE_VERSION = Pattern.compile("libibverbs\\.so\\.1\\.\\d+\\.(\\d+)\\.\\d+");

    private final Ibverbs ibverbs;
    private final LibC libc;
    private final Runtime runtime;
    private final int rdmaCoreMajor;

    private NativeLibraries(Ibverbs ibverbs, LibC libc, int rdmaCoreMajor) {
        this.ibverbs = ibverbs;
        this.libc = libc;
        this.runtime = Runtime.getRuntime(ibverbs);
        this.rdmaCoreMajor = rdmaCoreMajor;
    }

    /**
     * Loads both libraries and resolves every symbol.
     *
     * @throws UnsatisfiedLinkError if a library or one of its symbols is missing
     */
    public static NativeLibraries load() {
        Ibverbs ibverbs = LibraryLoader.create(Ibverbs.class).failImmediately().load(IBVERBS_SONAME);
        LibC libc = LibraryLoader.create(LibC.class).failImmediately().load("c");
        // Touch jffi's memory and invoker now, so a broken jffi native stub shows up as the cause here.
        MemoryIO.getInstance();
        return new NativeLibraries(ibverbs, libc, rdmaCoreVersion());
    }

    public Ibverbs ibverbs() {
        return ibverbs;
    }

    public LibC libc() {
        return libc;
    }

    /** errno as the last {@code @SaveError} call on this thread left it. */
    public int lastErrno() {
        return runtime.getLastError();
    }

    /**
     * The rdma-core release libibverbs comes from (44 on Debian 12), read from the mapped file's name
     * ({@code libibverbs.so.1.14.44.0}); 0 if unknown.
     */
    public int rdmaCoreMajor() {
        return rdmaCoreMajor;
    }

    private static int rdmaCoreVersion() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                Matcher m = RDMA_CORE_VERSION.matcher(line);
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
        } catch (IOException | RuntimeException e) {
            // Unknown: callers then assume the oldest behaviour.
        }
        return 0;
    }
}
