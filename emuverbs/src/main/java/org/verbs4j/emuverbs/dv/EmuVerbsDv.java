package org.verbs4j.emuverbs.dv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import org.verbs4j.Context;
import org.verbs4j.QueuePair;
import org.verbs4j.Unwrappable;
import org.verbs4j.VerbsException;
import org.verbs4j.provider.nativecommon.IbverbsHandle;

/**
 * An example vendor extension, as a vendor would write one for its direct verbs (pyverbs' {@code Mlx5Context} and
 * {@code Mlx5QP} over {@code mlx5dv_query_device} and {@code mlx5dv_query_qp}): the forwarding libibverbs's own
 * {@code emuverbsdv_query_qp} and {@code emuverbsdv_query_context}, which no verbs4j API has, reached from the
 * {@code ffm} and {@code jnr} providers' objects through the seam, {@code unwrap(IbverbsHandle.class)}.
 *
 * <p>It keeps the library's promise: the native address is lent by {@link IbverbsHandle#call} while the object is
 * held open (a closed object is an {@link IllegalStateException} before any native code runs), the handle is
 * checked to be of the struct the direct verb takes, and the verb writes only the output struct this class
 * allocates. Its FFM calls need {@code --enable-native-access} for this code, as any binding does.
 */
public final class EmuVerbsDv {
    /** {@code EMUVERBSDV_MASK_HANDLE}: the caller wants the handle. */
    private static final long MASK_HANDLE = 1;

    /** {@code struct emuverbsdv_qp}. */
    private static final StructLayout DV_QP = MemoryLayout.structLayout(JAVA_LONG.withName("comp_mask"),
            JAVA_LONG.withName("handle"), JAVA_INT.withName("qp_num"), JAVA_INT.withName("reserved"));
    /** {@code struct emuverbsdv_context}. */
    private static final StructLayout DV_CONTEXT = MemoryLayout.structLayout(JAVA_LONG.withName("comp_mask"),
            JAVA_LONG.withName("handle"));

    private EmuVerbsDv() {}

    /**
     * What {@code emuverbsdv_query_qp} reports of a QP.
     *
     * @param handle the handle of the emulated QP the forwarding library forwards to
     * @param qpNum the QP's number, as the library keeps it
     */
    public record QpInfo(long handle, int qpNum) {}

    /** The direct verbs, looked up on first use in the {@code libibverbs.so.1} the process loaded. */
    private static final class Symbols {
        static final MethodHandle QUERY_QP;
        static final MethodHandle QUERY_CONTEXT;
        /** Why there are none, or null. */
        static final String MISSING;

        static {
            MethodHandle qp = null;
            MethodHandle ctx = null;
            String missing = null;
            try {
                SymbolLookup lib = SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
                Linker linker = Linker.nativeLinker();
                FunctionDescriptor fd = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
                var q = lib.find("emuverbsdv_query_qp");
                var c = lib.find("emuverbsdv_query_context");
                if (q.isPresent() && c.isPresent()) {
                    qp = linker.downcallHandle(q.get(), fd);
                    ctx = linker.downcallHandle(c.get(), fd);
                } else {
                    missing = "the libibverbs.so.1 loaded is not the forwarding library (no emuverbsdv_query_qp)";
                }
            } catch (IllegalArgumentException | IllegalCallerException e) {
                missing = "libibverbs.so.1 does not load here: " + e;
            }
            QUERY_QP = qp;
            QUERY_CONTEXT = ctx;
            MISSING = missing;
        }
    }

    /**
     * Whether the direct verbs reach this object: it is of a libibverbs provider, and the library is the forwarding
     * one.
     *
     * @param object a context or a QP
     * @return whether {@link #queryQp} or {@link #queryContext} can be called with it
     */
    public static boolean isSupported(Unwrappable object) {
        return object.isWrapperFor(IbverbsHandle.class) && Symbols.MISSING == null;
    }

    /**
     * {@code emuverbsdv_query_qp}: what the forwarding library knows of a QP beyond {@code struct ibv_qp}.
     *
     * @param qp a QP of the {@code ffm} or {@code jnr} provider over the forwarding library
     * @return its handle and number
     * @throws UnsupportedOperationException if {@link #isSupported} is false
     * @throws IllegalStateException if the QP is closed
     * @throws VerbsException with the errno the direct verb returns
     */
    public static QpInfo queryQp(QueuePair qp) {
        return handle(qp, "ibv_qp").call(address -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(DV_QP);
                out.set(JAVA_LONG, 0, MASK_HANDLE);
                check("emuverbsdv_query_qp", (int) Symbols.QUERY_QP.invokeExact(address, out));
                return new QpInfo(out.get(JAVA_LONG, 8), out.get(JAVA_INT, 16));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
    }

    /**
     * {@code emuverbsdv_query_context}: the handle of the emulated context the forwarding library forwards to.
     *
     * @param context a context of the {@code ffm} or {@code jnr} provider over the forwarding library
     * @return the handle
     * @throws UnsupportedOperationException if {@link #isSupported} is false
     * @throws IllegalStateException if the context is closed
     * @throws VerbsException with the errno the direct verb returns
     */
    public static long queryContext(Context context) {
        return handle(context, "ibv_context").call(address -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(DV_CONTEXT);
                out.set(JAVA_LONG, 0, MASK_HANDLE);
                check("emuverbsdv_query_context", (int) Symbols.QUERY_CONTEXT.invokeExact(address, out));
                return out.get(JAVA_LONG, 8);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
    }

    private static IbverbsHandle handle(Unwrappable object, String struct) {
        if (!object.isWrapperFor(IbverbsHandle.class)) {
            throw new UnsupportedOperationException(object + " is not an object of a libibverbs provider");
        }
        if (Symbols.MISSING != null) {
            throw new UnsupportedOperationException(Symbols.MISSING);
        }
        IbverbsHandle h = object.unwrap(IbverbsHandle.class);
        if (!h.struct().equals(struct)) {
            throw new IllegalArgumentException("a " + struct + " is needed, not " + h);
        }
        return h;
    }

    private static void check(String verb, int rc) {
        if (rc != 0) {
            throw new VerbsException(verb, rc, null);
        }
    }
}
