package org.verbs4j.emuverbs.dv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.ProtectionDomain;
import org.verbs4j.QpInitAttributes;
import org.verbs4j.QpType;
import org.verbs4j.QueuePair;
import org.verbs4j.emuverbs.EmuVerbs;
import org.verbs4j.provider.emulated.EmulatedProvider;
import org.verbs4j.provider.nativecommon.IbverbsHandle;
import org.verbs4j.spi.VerbsProvider;

/**
 * The vendor extension seam, proved by the example extension {@link EmuVerbsDv}: a provider's object unwraps to its
 * {@link IbverbsHandle}, the extension reaches a direct verb of the forwarding libibverbs that no verbs4j API has,
 * and the library's promises hold across the door (no call on a closed object, no handle of the wrong struct, no
 * handle from a provider that has none). The {@code ffm} and {@code jnr} tests extend it; it runs where the
 * forwarding library is loaded and is skipped elsewhere.
 */
public abstract class EmuVerbsDvKit {
    private Context ctx;
    private ProtectionDomain pd;
    private CompletionQueue cq;

    /**
     * The libibverbs provider under test, made after the forwarding library is registered.
     *
     * @return a new provider
     */
    protected abstract VerbsProvider provider();

    @BeforeEach
    void open() {
        String why = EmuVerbs.register();
        assumeTrue(why == null, why);
        VerbsProvider p = provider();
        assumeTrue(p.isAvailable(), () -> String.valueOf(p.unavailabilityCause()));
        ctx = p.devices().get(0).open();
        pd = ctx.allocPd();
        cq = ctx.createCq(4);
    }

    @AfterEach
    void close() {
        if (ctx != null) {
            ctx.close();
        }
    }

    private QueuePair rcQp() {
        return pd.createQp(QpInitAttributes.builder(QpType.RC).cq(cq).maxSendWr(1).maxRecvWr(1).build());
    }

    @Test
    @DisplayName("a context and a QP unwrap to their native handle, named after their struct and provider")
    void unwrapsToTheHandle() {
        try (QueuePair qp = rcQp()) {
            assertTrue(ctx.isWrapperFor(IbverbsHandle.class));
            assertTrue(qp.isWrapperFor(IbverbsHandle.class));
            assertEquals("ibv_context", ctx.unwrap(IbverbsHandle.class).struct());
            assertEquals("ibv_qp", qp.unwrap(IbverbsHandle.class).struct());
            assertEquals(provider().name(), qp.unwrap(IbverbsHandle.class).providerName());
            assertSame(qp, qp.unwrap(QueuePair.class), "the object is a view of itself");
            assertFalse(qp.isWrapperFor(String.class));
            assertThrows(IllegalArgumentException.class, () -> qp.unwrap(String.class));
        }
    }

    @Test
    @DisplayName("the example extension reaches emuverbsdv_query_qp: the library's own QP behind the verbs4j QP")
    void directVerbOfAQp() {
        try (QueuePair a = rcQp(); QueuePair b = rcQp()) {
            assertTrue(EmuVerbsDv.isSupported(a));
            EmuVerbsDv.QpInfo ia = EmuVerbsDv.queryQp(a);
            EmuVerbsDv.QpInfo ib = EmuVerbsDv.queryQp(b);
            assertEquals(a.qpNum(), ia.qpNum());
            assertEquals(b.qpNum(), ib.qpNum());
            assertNotEquals(ia.handle(), ib.handle(), "each QP has its own handle in the library");
            QueuePair forwarded = assertInstanceOf(QueuePair.class, EmuVerbs.forwardedObject(ia.handle()),
                    "the handle names the emulated QP the library forwards to");
            assertEquals(a.qpNum(), forwarded.qpNum());
        }
    }

    @Test
    @DisplayName("the example extension reaches emuverbsdv_query_context: the library's own context")
    void directVerbOfAContext() {
        assertTrue(EmuVerbsDv.isSupported(ctx));
        assertInstanceOf(Context.class, EmuVerbs.forwardedObject(EmuVerbsDv.queryContext(ctx)));
    }

    @Test
    @DisplayName("no direct verb runs on a closed object: IllegalStateException before the library is called")
    void closedObjectsAreRefused() {
        QueuePair qp = rcQp();
        IbverbsHandle h = qp.unwrap(IbverbsHandle.class);
        qp.close();
        assertThrows(IllegalStateException.class, () -> EmuVerbsDv.queryQp(qp));
        assertThrows(IllegalStateException.class, () -> h.call(address -> {
            throw new AssertionError("called with the address of a destroyed QP");
        }));
        ctx.close();
        assertThrows(IllegalStateException.class, () -> EmuVerbsDv.queryContext(ctx));
    }

    @Test
    @DisplayName("a handle is only ever made from the provider's own objects, and of the struct the verb takes")
    void handlesCannotBeForged() {
        assertEquals(0, IbverbsHandle.class.getConstructors().length, "no public constructor");
        for (java.lang.reflect.Method m : IbverbsHandle.class.getMethods()) {
            assertFalse(java.lang.reflect.Modifier.isStatic(m.getModifiers())
                    && m.getReturnType() == IbverbsHandle.class, "no public factory: " + m);
        }
        try (QueuePair qp = rcQp()) {
            // A QueuePair of someone else's making, unwrapping to the handle of a context, is refused.
            QueuePair impostor = (QueuePair) java.lang.reflect.Proxy.newProxyInstance(
                    QueuePair.class.getClassLoader(), new Class<?>[] {QueuePair.class}, (p, m, args) ->
                            switch (m.getName()) {
                                case "isWrapperFor" -> true;
                                case "unwrap" -> ctx.unwrap(IbverbsHandle.class);
                                case "toString" -> "impostor";
                                default -> throw new UnsupportedOperationException(m.getName());
                            });
            assertThrows(IllegalArgumentException.class, () -> EmuVerbsDv.queryQp(impostor));
            assertEquals(qp.qpNum(), EmuVerbsDv.queryQp(qp).qpNum());
        }
    }

    @Test
    @DisplayName("a provider without native handles offers none: the extension says it is unsupported")
    void otherProvidersHaveNoHandle() {
        try (Context emu = new EmulatedProvider().devices().get(0).open()) {
            assertFalse(emu.isWrapperFor(IbverbsHandle.class));
            assertThrows(IllegalArgumentException.class, () -> emu.unwrap(IbverbsHandle.class));
            assertFalse(EmuVerbsDv.isSupported(emu));
            assertThrows(UnsupportedOperationException.class, () -> EmuVerbsDv.queryContext(emu));
        }
    }
}
