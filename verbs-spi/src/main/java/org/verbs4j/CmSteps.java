package org.verbs4j;

import java.util.concurrent.TimeUnit;

/** The waits of the convenience layer: the next event of a channel must be the one a step expects. */
final class CmSteps {
    private CmSteps() {}

    /**
     * Waits for the next event and acknowledges it.
     *
     * @return the private data of the expected event
     * @throws CmConnectException if another event came, or none within timeoutMs
     */
    static byte[] expect(CmEventChannel channel, CmEventType expected, int timeoutMs, String verb) {
        try (CmEvent e = channel.getEvent(timeoutMs, TimeUnit.MILLISECONDS)) {
            if (e == null) {
                throw new CmConnectException(verb, Errno.ETIMEDOUT, null, 0, null);
            }
            if (e.type() != expected) {
                throw failure(verb, e);
            }
            return e.privateData();
        }
    }

    static CmConnectException failure(String verb, CmEvent e) {
        int errno = e.type() == CmEventType.REJECTED ? Errno.ECONNREFUSED
                : e.status() < 0 ? -e.status() : Errno.EIO;
        return new CmConnectException(verb, errno, e.type(), e.status(), e.privateData());
    }

    /** Closes what a failed step leaves behind, keeping the first failure. */
    static void closeQuietly(RuntimeException failure, AutoCloseable... resources) {
        for (AutoCloseable r : resources) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
