package org.verbs4j.provider.nativecommon.internal;

import java.util.Locale;
import java.util.Set;

/**
 * Whether the data-path ops of a device are called as critical downcalls ({@code Linker.Option.critical}): no
 * thread-state transition, so the JVM cannot reach a safepoint while one runs. That is allowed only for a call that
 * is short in every case and never blocks nor calls back into Java. Decided once per context, from the provider
 * library whose code the context's {@code post_send} op runs ({@link IbverbsBinding#libraryOf}, {@code dladdr(3)}):
 *
 * <table class="striped">
 *   <caption>The data-path ops, per kind of device</caption>
 *   <thead><tr><th>op</th><th>user-space data path (allow-list)</th><th>any other device (rxe, siw, unknown)</th>
 *   </tr></thead>
 *   <tbody>
 *   <tr><td>{@code post_send}, {@code wr_start}, {@code wr_complete}</td><td>critical: the send queue's spinlock,
 *       never contended (below), and a doorbell written in user memory</td><td>ordinary: rxe's and siw's doorbell
 *       is a system call, and the kernel does the requester's work in it</td></tr>
 *   <tr><td>{@code post_recv}, {@code post_srq_recv}</td><td>critical: the receive queue's or SRQ's spinlock,
 *       held only inside a call, and a doorbell record in user memory</td><td>ordinary</td></tr>
 *   <tr><td>{@code poll_cq}, {@code start_poll}, {@code next_poll}, {@code end_poll}</td><td>critical: the CQ's
 *       spinlock, never contended (below), and CQEs read from user memory</td><td>ordinary</td></tr>
 *   <tr><td>{@code ibv_wr_*} builders and setters, {@code ibv_wc_read_*}</td><td>critical</td><td>critical: they
 *       write or read the current WQE or CQE in user memory under a lock already taken</td></tr>
 *   <tr><td>{@code wr_abort}, {@code bind_mw}, {@code req_notify_cq}, every control verb</td><td>ordinary: off
 *       the hot path</td><td>ordinary</td></tr>
 *   </tbody>
 * </table>
 *
 * <p>Why the locks are never contended: a provider library holds the send queue's spinlock from {@code wr_start}
 * to {@code wr_complete} or {@code wr_abort}, and the CQ's from {@code start_poll} to {@code end_poll}, while Java
 * code runs in between. A critical call spinning on such a lock would keep the JVM from its safepoint, and the
 * holder, stopped at that safepoint, would never release it. So the Java side serializes every user of the two
 * locks: a QP's {@code postSend}, its type 1 {@code bindMw} and its WR session share one Java lock
 * ({@link NativeQueuePair}), and every poll of a CQ holds the CQ's monitor ({@link NativeCompletionQueue}). The
 * native lock is then free whenever a critical call takes it, except for a moment inside an ordinary call of
 * another thread (a destroy, a modify to RESET), which holds it only inside that call.
 *
 * <p>The allow-list names user-space provider libraries by the file {@code dladdr} gives, without {@code lib} and
 * the {@code -rdmav*}/{@code .so*} suffix, whose data path was read for this and found to take no lock a WR
 * session holds and to make no system call: {@code mlx5}, {@code efa}, and {@code ibverbs} itself (libibverbs' own
 * ops return an error at once, and the null library of {@code benchmarks/c} implements its device there). Not on
 * it: {@code hns}, whose DCA mode (in the rdma-core patches read) takes the send queue's lock in {@code poll_cq}
 * and makes system calls to attach and shrink its WQE memory from the data path; {@code mlx4}, {@code bnxt_re},
 * {@code irdma} and any other library, whose data paths were not checked. A provider not on it, or one the binding cannot name, is not
 * critical. The system property {@value #PROPERTY} overrides the choice: {@code auto} (the default),
 * {@code on} (every device; the caller answers for its provider library), {@code off}. A binding without critical
 * calls ({@link IbverbsBinding#hasCriticalCalls()}: jnr, whose jffi invoker has no such mode) is never critical.
 */
public final class CriticalDataPath {
    /** The system property that overrides the choice: {@code auto}, {@code on} or {@code off}. */
    public static final String PROPERTY = "verbs4j.native.criticalDataPath";

    /** The provider libraries whose data path is user space, by their short name. */
    static final Set<String> USER_SPACE_PROVIDERS = Set.of("mlx5", "efa", "ibverbs");

    private CriticalDataPath() {}

    /**
     * Whether a context's data-path ops are critical calls, by the property {@value #PROPERTY}.
     *
     * @param binding the provider's binding
     * @param postSendOp the context's {@code ops.post_send}, or 0
     * @return whether they are
     * @throws IllegalArgumentException if the property is set to something other than auto, on or off
     */
    public static boolean decide(IbverbsBinding binding, long postSendOp) {
        return decide(System.getProperty(PROPERTY), binding.hasCriticalCalls(),
                postSendOp == 0 ? null : provider(binding.libraryOf(postSendOp)));
    }

    /**
     * The choice, from its inputs.
     *
     * @param mode the property's value, or null for {@code auto}
     * @param bindingCan whether the binding has critical calls
     * @param provider the provider library's short name, or null if unknown
     * @return whether the data-path ops are critical calls
     * @throws IllegalArgumentException if {@code mode} is not auto, on or off
     */
    static boolean decide(String mode, boolean bindingCan, String provider) {
        String m = mode == null ? "auto" : mode.trim().toLowerCase(Locale.ROOT);
        return switch (m) {
            case "auto" -> bindingCan && provider != null && USER_SPACE_PROVIDERS.contains(provider);
            case "on" -> bindingCan;
            case "off" -> false;
            default -> throw new IllegalArgumentException("the system property " + PROPERTY
                    + " takes auto, on or off, not '" + mode + "'");
        };
    }

    /**
     * The short name of a provider library: {@code /usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so} and
     * {@code libmlx5.so.1} give {@code mlx5}.
     *
     * @param path the library's file, as the dynamic linker names it, or null
     * @return its short name, or null if {@code path} is null or not a {@code lib*.so} file
     */
    static String provider(String path) {
        if (path == null) {
            return null;
        }
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (!name.startsWith("lib")) {
            return null;
        }
        int end = name.indexOf("-rdmav");
        if (end < 0) {
            end = name.indexOf(".so");
        }
        return end > 3 ? name.substring(3, end) : null;
    }
}
