package org.verbs4j.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.function.Executable;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;

/** Assertions about how a call fails, with messages that say what to check. */
public final class Expect {
    private Expect() {}

    /**
     * Fails unless the call throws a {@link VerbsException} (or subclass) with one of the errnos.
     *
     * @param rule the rule checked, for the failure message
     * @param call the verbs call
     * @param errnos the errno values the man page allows ({@link org.verbs4j.Errno})
     * @return the exception
     */
    public static VerbsException errno(String rule, Executable call, int... errnos) {
        Throwable t = run(call);
        if (t instanceof VerbsException v) {
            for (int e : errnos) {
                if (v.errno() == e) {
                    return v;
                }
            }
            fail(rule + ": expected errno " + names(errnos) + " but got " + v.errnoName() + " (" + v.getMessage() + ")");
        }
        fail(rule + ": expected a VerbsException with errno " + names(errnos) + " but "
                + (t == null ? "the call succeeded" : "got " + t), t);
        return null;
    }

    /**
     * Fails unless the call throws an exception of the given class.
     *
     * @param <T> the exception's type
     * @param rule the rule checked, for the failure message
     * @param type the class the exception must be an instance of
     * @param call the call
     * @return the exception
     */
    public static <T extends Throwable> T thrown(String rule, Class<T> type, Executable call) {
        Throwable t = run(call);
        if (type.isInstance(t)) {
            return type.cast(t);
        }
        fail(rule + ": expected " + type.getSimpleName() + " but "
                + (t == null ? "the call succeeded" : "got " + t), t);
        return null;
    }

    /**
     * Fails unless the call is refused in Java as bad input, before reaching the device:
     * IllegalArgumentException, NullPointerException or IndexOutOfBoundsException.
     *
     * @param rule the rule checked, for the failure message
     * @param call the call with bad input
     * @return the exception
     */
    public static RuntimeException badInput(String rule, Executable call) {
        Throwable t = run(call);
        if (t instanceof IllegalArgumentException || t instanceof NullPointerException
                || t instanceof IndexOutOfBoundsException) {
            return (RuntimeException) t;
        }
        fail(rule + ": bad input must be refused with IllegalArgumentException or NullPointerException before "
                + "reaching the device, but " + (t == null ? "the call succeeded" : "got " + t), t);
        return null;
    }

    /**
     * Fails unless the call is refused because the object is closed: IllegalStateException.
     *
     * @param what names the call, for the failure message
     * @param call the call on a closed object
     */
    public static void closed(String what, Executable call) {
        Throwable t = run(call);
        if (!(t instanceof IllegalStateException)) {
            fail(what + " after close() must throw IllegalStateException (VerbsObject), but "
                    + (t == null ? "the call succeeded" : "got " + t), t);
        }
    }

    /**
     * Fails unless the call is refused by an exception a verbs4j provider may use (not an Error, not silence):
     * VerbsException, IllegalArgumentException, NullPointerException, IllegalStateException or
     * UnsupportedOperationException.
     *
     * @param rule the rule checked, for the failure message
     * @param call the call
     * @return the exception
     */
    public static Throwable refused(String rule, Executable call) {
        Throwable t = run(call);
        if (t instanceof VerbsException || t instanceof IllegalArgumentException || t instanceof NullPointerException
                || t instanceof IllegalStateException || t instanceof UnsupportedOperationException) {
            return t;
        }
        fail(rule + ": expected the call to be refused but " + (t == null ? "it succeeded" : "got " + t), t);
        return null;
    }

    private static Throwable run(Executable call) {
        try {
            call.execute();
            return null;
        } catch (Error e) {
            if (e instanceof AssertionError) {
                throw e;
            }
            return e;
        } catch (Throwable t) {
            return t;
        }
    }

    private static String names(int... errnos) {
        return Arrays.stream(errnos).mapToObj(Errno::name).collect(Collectors.joining(" or "));
    }
}
