package org.verbs4j.spi.support;

/**
 * Holds the objects one native call reads, so that no close on another thread destroys them during it: the
 * object the method runs on and the objects passed to it (a PD and its CQs while a QP is created, a context while
 * it is queried). Each is held by {@link AbstractVerbsObject#enterCall()}; {@link #close()} releases them all.
 * Used with try-with-resources around the native call and the construction of its Java object, which records
 * the new object's dependencies before the hold ends:
 *
 * <pre>{@code
 * pd.checkOpen();                                  // the API's order of checks first
 * try (CallHold hold = CallHold.on(pd).and(cq, "the send CQ")) {
 *     long qp = binding.createQp(...);
 *     return new NativeQueuePair(...);            // dependOn(pd), dependOn(cq)
 * }
 * }</pre>
 *
 * Not for the data path: it allocates. Posts hold their few objects with {@code enterCall()} directly.
 */
public final class CallHold implements AutoCloseable {
    private final AbstractVerbsObject[] held = new AbstractVerbsObject[6];
    private int count;

    private CallHold() {}

    /**
     * Holds the object a method runs on.
     *
     * @param receiver the object, not null
     * @return the hold
     * @throws IllegalStateException "this &lt;kind&gt; is closed" if it is closed, or its close has begun
     */
    public static CallHold on(AbstractVerbsObject receiver) {
        CallHold h = new CallHold();
        if (!receiver.enterCall()) {
            throw new IllegalStateException("this " + receiver.kind() + " is closed");
        }
        h.held[h.count++] = receiver;
        return h;
    }

    /**
     * Holds an object passed to the method as well; on failure releases what it held.
     *
     * @param argument the object, or null for none
     * @param what its name in the message: {@code "the SRQ"}
     * @return this hold
     * @throws IllegalArgumentException "&lt;what&gt; is closed" if it is closed, or its close has begun
     */
    public CallHold and(AbstractVerbsObject argument, String what) {
        if (argument == null) {
            return this;
        }
        if (count == held.length) {
            close();
            throw new IllegalStateException("a CallHold holds at most " + held.length + " objects");
        }
        if (!argument.enterCall()) {
            close();
            throw new IllegalArgumentException(what + " is closed");
        }
        held[count++] = argument;
        return this;
    }

    /** Releases every object held, newest first; a second call does nothing. */
    @Override
    public void close() {
        while (count > 0) {
            AbstractVerbsObject o = held[--count];
            held[count] = null;
            o.exitCall();
        }
    }
}
