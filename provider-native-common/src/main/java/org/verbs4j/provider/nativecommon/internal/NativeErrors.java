package org.verbs4j.provider.nativecommon.internal;

import org.verbs4j.Errno;
import org.verbs4j.VerbsException;

/**
 * The one errno contract of the native bindings, and the one place that turns a failed result into its
 * exception (issue 28; the habit of Netty's {@code transport-native-unix-common} {@code Errors.ioResult}).
 *
 * <p>Every call of {@link IbverbsBinding} and {@link RdmaCmLibrary} answers its result or <em>minus the
 * errno</em>:
 * <ul>
 *   <li>a verb that makes an object answers its address (user-space addresses are positive), or −errno;</li>
 *   <li>a verb that answers {@code int} answers 0 (or its non-negative result), or −errno.</li>
 * </ul>
 * libibverbs itself reports failure three ways: most {@code int} verbs return the errno, a few return −1 with
 * {@code errno} set, and some provider ops return −errno. A binding folds all three into −errno with
 * {@link #ofInt} and {@link #ofAddress}, both called only on the failure branch. A call that failed without
 * saying why (−1 with {@code errno} 0, NULL with {@code errno} 0) is {@link #UNKNOWN}, {@code EIO}, in every
 * binding.
 *
 * <p>The hand-written data path is the one exception, so that its success path stays one compare:
 * {@code post_send}, {@code post_recv}, {@code wr_complete}, {@code start_poll}, {@code next_poll} and
 * {@code poll_cq} answer the provider op's raw result, and their callers hand a non-zero (negative, for
 * {@code poll_cq}) result to {@link #ofOp} or {@link #ofPoll} on the failure branch.
 */
public final class NativeErrors {
    /** The errno of a call that failed without saying why: {@code EIO}, in ffm and jnr alike. */
    public static final int UNKNOWN = Errno.EIO;

    private NativeErrors() {}

    /**
     * Minus an errno a failed call left.
     *
     * @param errno the {@code errno} the call left, as captured after it
     * @return {@code -errno}, or {@code -UNKNOWN} if it is not positive
     */
    public static int negated(int errno) {
        return -(errno > 0 ? errno : UNKNOWN);
    }

    /**
     * An {@code int} verb's result in the contract.
     *
     * @param rc what the verb returned: 0, an errno, −1 with {@code errno} set, or −errno
     * @param errno the {@code errno} captured after the call; read only when {@code rc} is −1
     * @return 0 for 0, else −errno
     */
    public static int ofInt(int rc, int errno) {
        if (rc == 0) {
            return 0;
        }
        if (rc > 0) {
            return -rc;
        }
        return rc == -1 ? negated(errno) : rc;
    }

    /**
     * A pointer-returning verb's result in the contract.
     *
     * @param address what the verb returned, 0 for NULL
     * @param errno the {@code errno} captured after the call; read only for NULL
     * @return the address, or −errno for NULL
     */
    public static long ofAddress(long address, int errno) {
        return address != 0 ? address : negated(errno);
    }

    /**
     * An op's raw result as 0 or −errno: the provider libraries return the errno with either sign, and the ops
     * capture no {@code errno}, so −1 is {@link #UNKNOWN}.
     *
     * @param rc the op's result
     * @return 0 for 0, else −errno
     */
    public static int ofOp(int rc) {
        return rc > 0 ? -rc : rc == -1 ? -UNKNOWN : rc;
    }

    /**
     * {@code ibv_poll_cq}'s failure as −errno: "a negative value" by its man page, which some providers make
     * −errno and others −1.
     *
     * @param got the negative count {@code poll_cq} returned
     * @return −errno; {@code -UNKNOWN} for −1
     */
    public static int ofPoll(int got) {
        return got < -1 ? got : -UNKNOWN;
    }

    /**
     * The errno of a result, for {@link org.verbs4j.spi.support.AbstractVerbsObject#destroy()}, which wants it
     * positive.
     *
     * @param result a result in the contract
     * @return 0 if it succeeded, else the errno (positive)
     */
    public static int errno(long result) {
        return result < 0 ? (int) -result : 0;
    }

    /**
     * Passes a successful result on, or throws.
     *
     * @param result an {@code int} result in the contract
     * @param verb the verb, as the exception names it ({@code ibv_modify_qp})
     * @param detail what was asked, or null
     * @return {@code result}, which is not negative
     * @throws VerbsException with {@code -result} as the errno, if {@code result} is negative
     */
    public static int check(int result, String verb, String detail) {
        if (result < 0) {
            throw exception(result, verb, detail);
        }
        return result;
    }

    /**
     * Passes a made object's address on, or throws.
     *
     * @param result an address (positive) or −errno
     * @param verb the verb, as the exception names it ({@code ibv_alloc_pd})
     * @param detail what was asked, or null
     * @return the address
     * @throws VerbsException with {@code -result} as the errno, if {@code result} is negative; with
     *     {@link #UNKNOWN} for 0, which no binding answers, so that NULL never becomes an object
     */
    public static long check(long result, String verb, String detail) {
        if (result <= 0) {
            throw exception(result, verb, detail);
        }
        return result;
    }

    /**
     * The exception of a failed result.
     *
     * @param result −errno; {@link #UNKNOWN} stands for anything else
     * @param verb the verb that failed
     * @param detail what was asked, or null
     * @return the exception, naming the verb and the errno
     */
    public static VerbsException exception(long result, String verb, String detail) {
        int errno = result < 0 && result >= Integer.MIN_VALUE + 1 ? (int) -result : UNKNOWN;
        return new VerbsException(verb, errno, detail);
    }
}
