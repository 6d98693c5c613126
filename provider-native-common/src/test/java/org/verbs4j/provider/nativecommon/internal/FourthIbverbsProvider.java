package org.verbs4j.provider.nativecommon.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.verbs4j.VerbsException;

/**
 * A fourth libibverbs provider, test-only (issue 28): the whole of what a provider writes beyond its binding is this
 * one class, its name and priority, and its library's loader and device list. Its binding is the recording binding
 * of {@link NativeObjectModelTest}; a real one binds libibverbs as {@code ffm} and {@code jnr} do.
 */
public final class FourthIbverbsProvider extends IbverbsProviderShell {
    /** The devices its library lists now; tests add and remove. */
    static final List<ListedDevice> LISTED = new CopyOnWriteArrayList<>(List.of(new ListedDevice("rxe0", 0x1234)));
    /** The errno {@code ibv_get_device_list} fails with, 0 for none. */
    static volatile int listErrno;
    /** How often the library was loaded. */
    static volatile int loads;

    /** Cheap: loads nothing. */
    public FourthIbverbsProvider() {
        super("fourth", 50);
    }

    @Override
    protected Library loadLibrary() {
        loads++;
        IbverbsBinding binding = new NativeObjectModelTest.Binding();
        return new Library() {
            @Override
            public IbverbsBinding binding() {
                return binding;
            }

            @Override
            public List<ListedDevice> listDevices() {
                if (listErrno != 0) {
                    throw new VerbsException("ibv_get_device_list", listErrno, null);
                }
                return List.copyOf(LISTED);
            }
        };
    }
}
