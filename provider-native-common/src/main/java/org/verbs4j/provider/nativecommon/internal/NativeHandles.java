package org.verbs4j.provider.nativecommon.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.verbs4j.provider.nativecommon.IbverbsHandle;
import org.verbs4j.spi.support.AbstractVerbsObject;

/**
 * Makes the {@link IbverbsHandle}s of the native objects, the door for vendor extensions. The handle's constructor
 * is private, so that no code outside this module can make one of an address; this class reaches it through a
 * private lookup, which the module allows itself (its packages are open to it) and no other module is given.
 */
final class NativeHandles {
    private static final MethodHandle NEW;

    static {
        try {
            NEW = MethodHandles.privateLookupIn(IbverbsHandle.class, MethodHandles.lookup()).findConstructor(
                    IbverbsHandle.class, MethodType.methodType(void.class, AbstractVerbsObject.class, String.class,
                            String.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private NativeHandles() {}

    /** {@return the handle of a context: its {@code struct ibv_context *}} */
    static IbverbsHandle of(NativeContext context) {
        return make(context, context.providerName(), "ibv_context", context.contextHandle());
    }

    /** {@return the handle of a QP: its {@code struct ibv_qp *}} */
    static IbverbsHandle of(NativeQueuePair qp) {
        String provider = qp.nativeContext() instanceof NativeContext c ? c.providerName() : "native";
        return make(qp, provider, "ibv_qp", qp.handle());
    }

    private static IbverbsHandle make(AbstractVerbsObject owner, String provider, String struct, long address) {
        try {
            return (IbverbsHandle) NEW.invokeExact(owner, provider, struct, address);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
