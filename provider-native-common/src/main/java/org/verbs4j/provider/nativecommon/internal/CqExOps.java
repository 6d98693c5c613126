package org.verbs4j.provider.nativecommon.internal;

/**
 * The poll ops of {@code struct ibv_cq_ex} ({@code ibv_create_cq_ex(3)}): {@code start_poll}, {@code next_poll},
 * {@code end_poll} and the {@code read_*} readers. <b>Data path, written by hand:</b> one downcall each, no
 * allocation; {@link #startPoll} and {@link #nextPoll} answer the op's raw result, {@code ENOENT} when the CQ has
 * no (further) completion.
 */
public interface CqExOps {
    /**
     * {@code ibv_cq_ex.start_poll}, which the inline {@code ibv_start_poll(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     * @param attr a zeroed {@code struct ibv_poll_cq_attr}
     * @return 0, {@code ENOENT} when the CQ is empty, or another errno with either sign ({@link NativeErrors#ofOp})
     */
    int startPoll(long fn, long cq, long attr);

    /**
     * {@link #startPoll} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     * @param attr a zeroed {@code struct ibv_poll_cq_attr}
     * @return 0, {@code ENOENT} when the CQ is empty, or another errno with either sign ({@link NativeErrors#ofOp})
     */
    default int startPollCritical(long fn, long cq, long attr) {
        return startPoll(fn, cq, attr);
    }

    /**
     * {@code ibv_cq_ex.next_poll}, which the inline {@code ibv_next_poll(3)} calls: makes the CQ's next completion
     * the current one, between {@code start_poll} and {@code end_poll}.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, after a {@code start_poll} that answered 0
     * @return 0, {@code ENOENT} when the CQ has no further completion, or another errno with either sign
     *     ({@link NativeErrors#ofOp}); either way {@code end_poll} is still to be called
     */
    int nextPoll(long fn, long cq);

    /**
     * {@link #nextPoll} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, after a {@code start_poll} that answered 0
     * @return 0, {@code ENOENT} when the CQ has no further completion, or another errno with either sign
     */
    default int nextPollCritical(long fn, long cq) {
        return nextPoll(fn, cq);
    }

    /**
     * {@code ibv_cq_ex.end_poll}, which the inline {@code ibv_end_poll(3)} calls.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     */
    void endPoll(long fn, long cq);

    /**
     * {@link #endPoll} as a critical call, where the device's data path allows it.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}
     */
    default void endPollCritical(long fn, long cq) {
        endPoll(fn, cq);
    }

    /**
     * An {@code ibv_cq_ex.read_*} op that answers a {@code uint32_t} (or a narrower field widened to it).
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, between {@code start_poll} and {@code end_poll}
     * @return the field
     */
    int readU32(long fn, long cq);

    /**
     * An {@code ibv_cq_ex.read_*} op that answers a {@code uint64_t}: {@code read_completion_ts},
     * {@code read_completion_wallclock_ns}.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, between {@code start_poll} and {@code end_poll}
     * @return the field
     */
    long readU64(long fn, long cq);

    /**
     * An {@code ibv_cq_ex.read_*} op that answers a {@code uint8_t}.
     *
     * @param fn the op's address
     * @param cq the {@code struct ibv_cq_ex *}, between {@code start_poll} and {@code end_poll}
     * @return the field, 0..255
     */
    int readU8(long fn, long cq);
}
