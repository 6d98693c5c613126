package org.verbs4j.emuverbs;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.verbs4j.PostSendException;

/**
 * The library's calls that read objects named by their arguments (a post whose WRs name an address handle, a window
 * or a region, an {@code ibv_bind_mw}), and the objects destroyed while one of them runs. A native layer must hold
 * such an object from its check until the call returns, so that a close on another thread waits (issue 26); if a
 * destroy verb of a named object runs before the library has read it, or while the call runs, a real libibverbs
 * reads freed memory. Here the call fails with {@code EFAULT} instead, and says why on stderr, so that a TCK rule
 * sees it: the C side keeps destroyed objects, handle intact, in quarantine for this.
 */
final class InFlightCalls {
    /** {@code EFAULT}: the errno a call that read a destroyed object returns. */
    static final int EFAULT = 14;

    private static final Set<Call> CALLS = ConcurrentHashMap.newKeySet();
    /** The handles whose destroy verb is running. */
    private static final Set<Long> DESTROYING = ConcurrentHashMap.newKeySet();
    /** The memory, as (address, length), of the regions whose destroy verb is running, by handle. */
    private static final Map<Long, long[]> DEREGISTERING = new ConcurrentHashMap<>();

    /** What the library knows of its objects. */
    interface Liveness {
        /** {@return whether a handle names an object that was destroyed (or never existed)} */
        boolean destroyed(long handle);

        /** {@return whether a registered region holds the {@code len} bytes at {@code addr}} */
        boolean registered(long addr, long len);
    }

    private InFlightCalls() {}

    /** One call under way: the handles it names and the address ranges whose bytes it copies (inline data). */
    static final class Call {
        private final String verb;
        private final long[] handles;
        private final long[] ranges;
        private volatile String violation;

        private Call(String verb, long[] handles, long[] ranges) {
            this.verb = verb;
            this.handles = handles;
            this.ranges = ranges;
        }

        private boolean names(long handle) {
            for (long h : handles) {
                if (h == handle) {
                    return true;
                }
            }
            return false;
        }

        private boolean overlaps(long addr, long len) {
            for (int i = 0; i + 1 < ranges.length; i += 2) {
                if (ranges[i] < addr + len && addr < ranges[i] + ranges[i + 1]) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Ends the call.
         *
         * @throws PostSendException {@code EFAULT}, bad WR 0, if an object it names was destroyed before it read
         *     it or while it ran; called in a {@code finally}, so that it replaces the engine's own refusal of the
         *     destroyed object
         */
        void close() {
            CALLS.remove(this);
            String v = violation;
            if (v != null) {
                String m = "emuverbs: " + verb + " " + v + "; a real libibverbs would read freed memory";
                System.err.println(m);
                throw new PostSendException(EFAULT, 0, m);
            }
        }
    }

    /**
     * Starts a call.
     *
     * @param verb the verb, for the message
     * @param handles the handles of the objects its arguments name (0 for none)
     * @param ranges the address ranges it copies bytes from, as (address, length) pairs
     * @param live which handles are destroyed
     * @return the call, to close once the verb has run
     */
    static Call enter(String verb, long[] handles, long[] ranges, Liveness live) {
        Call c = new Call(verb, handles, ranges);
        CALLS.add(c);
        for (long h : handles) {
            if (h != 0 && (DESTROYING.contains(h) || live.destroyed(h))) {
                c.violation = "names handle " + h + ", destroyed before the call read it";
            }
        }
        for (int i = 0; i + 1 < ranges.length; i += 2) {
            boolean dying = false;
            for (long[] r : DEREGISTERING.values()) {
                dying |= c.overlaps(r[0], r[1]);
            }
            if (ranges[i + 1] > 0 && (dying || !live.registered(ranges[i], ranges[i + 1]))) {
                c.violation = "copies inline data from 0x" + Long.toHexString(ranges[i]) + " (" + ranges[i + 1]
                        + " bytes), in no registered region: deregistered before or as the call read it";
            }
        }
        return c;
    }

    /**
     * Marks the start of a destroy verb: every call under way that names the object, or copies bytes of its
     * memory, is charged with it.
     *
     * @param handle the object's handle
     * @param addr the start of its memory for a region, else 0
     * @param len the length of its memory for a region, else 0
     */
    static void destroying(long handle, long addr, long len) {
        DESTROYING.add(handle);
        if (len > 0) {
            DEREGISTERING.put(handle, new long[] {addr, len});
        }
        for (Call c : CALLS) {
            if (c.names(handle)) {
                c.violation = "names handle " + handle + ", destroyed while the call ran";
            } else if (len > 0 && c.overlaps(addr, len)) {
                c.violation = "copies inline data from region " + handle + ", deregistered while the call ran";
            }
        }
    }

    /** Marks the end of a destroy verb, whatever its outcome. */
    static void destroyed(long handle) {
        DESTROYING.remove(handle);
        DEREGISTERING.remove(handle);
    }
}
