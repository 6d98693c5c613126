package org.verbs4j.provider.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCm;
import org.verbs4j.provider.nativecommon.internal.LibRdmaCmFunctions;

/**
 * librdmacm for FFM: its functions bound from their one declaration ({@link LibRdmaCmFunctions}) by
 * {@link FfmDeclaredLibrary}, capturing {@code errno} as every ffm call does, and {@code malloc}/{@code free} for the
 * per-call blocks of {@link LibRdmaCm}. Loading this class loads librdmacm and fails if it is missing: check with
 * {@code SymbolLookup.libraryLookup} first.
 */
public final class Rdmacm {
    private Rdmacm() {}

    private static final SymbolLookup LIB = SymbolLookup.libraryLookup(LibRdmaCm.SONAME, Arena.global());
    private static final MemoryLayout P = JAVA_LONG;

    /** {@code malloc(3)} and {@code free(3)}: the per-call blocks of {@link LibRdmaCm} are freed explicitly. */
    public static final MethodHandle malloc$mh = Ibverbs.LINKER.downcallHandle(
            Ibverbs.LINKER.defaultLookup().find("malloc").orElseThrow(), FunctionDescriptor.of(P, JAVA_LONG));
    public static final MethodHandle free$mh = Ibverbs.LINKER.downcallHandle(
            Ibverbs.LINKER.defaultLookup().find("free").orElseThrow(), FunctionDescriptor.ofVoid(P));

    /** librdmacm's functions, bound from their one declaration ({@link LibRdmaCmFunctions}). */
    public static final LibRdmaCmFunctions FUNCTIONS = FfmDeclaredLibrary.bind(LibRdmaCmFunctions.class, LIB,
            LibRdmaCm.SONAME);
}
