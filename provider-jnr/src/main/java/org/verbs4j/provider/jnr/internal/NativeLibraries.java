package org.verbs4j.provider.jnr.internal;

import com.kenai.jffi.MemoryIO;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * libibverbs and libc, loaded once through JNR-FFI with {@code failImmediately()}: a missing library or
 * symbol fails {@link #load()} with the cause, never a later call.
 */
public final class NativeLibraries {
    /** The SONAME loaded; the unversioned {@code libibverbs.so} exists only with the -dev package. */
    public static final String IBVERBS_SONAME = "libibverbs.so.1";

    private final Ibverbs ibverbs;
    private final LibC libc;
    private final Runtime runtime;

    private NativeLibraries(Ibverbs ibverbs, LibC libc) {
        this.ibverbs = ibverbs;
        this.libc = libc;
        this.runtime = Runtime.getRuntime(ibverbs);
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
        return new NativeLibraries(ibverbs, libc);
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
}
