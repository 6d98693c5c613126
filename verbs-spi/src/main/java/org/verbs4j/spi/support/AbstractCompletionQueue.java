package org.verbs4j.spi.support;

import java.util.Objects;
import org.verbs4j.Capabilities;
import org.verbs4j.CompletionChannel;
import org.verbs4j.CompletionQueue;
import org.verbs4j.Context;
import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.WorkCompletionBatch;

/**
 * A completion queue, written once for every provider: its context, completion channel and capacity, the
 * getters that refuse a closed CQ, and the checks {@link #poll} and {@link #requestNotify} make before they
 * reach the device. A provider extends it and only binds: it reads completions into the batch
 * ({@link #pollInto}), arms the CQ ({@link #arm}) and destroys it in {@link #destroy()}.
 *
 * <p>The rules it applies, besides {@link AbstractVerbsObject}'s:
 * <ul>
 *   <li>{@link #poll} on a closed CQ throws {@link IllegalStateException}; a null batch throws
 *       {@link NullPointerException}; the batch is cleared before any completion is read into it.</li>
 *   <li>{@link #requestNotify} on a CQ made without a completion channel throws {@link IllegalStateException}
 *       ({@code ibv_req_notify_cq} would arm a CQ whose events nobody can read).</li>
 *   <li>{@link #modifyModeration} on a device without CQ moderation ({@link Capabilities#cqModeration()}) fails
 *       with {@code EOPNOTSUPP}, as {@code ibv_modify_cq} does without the op; a count or period below 0 or above
 *       the device's {@code cq_mod_caps} fails with {@code EINVAL} before the device sees it.</li>
 *   <li>{@link #resize} on a closed CQ throws {@link IllegalStateException}, and below 1 entry
 *       {@link IllegalArgumentException}, as {@code createCq} does; {@link #capacity()} then answers what the
 *       device granted.</li>
 * </ul>
 *
 * @see "ibv_create_cq(3), ibv_poll_cq(3), ibv_req_notify_cq(3), ibv_modify_cq(3), ibv_resize_cq(3), ibv_destroy_cq(3)"
 */
public abstract class AbstractCompletionQueue extends AbstractVerbsObject implements CompletionQueue {
    private final Context context;
    private final CompletionChannel channel;
    /** Set at creation and by each {@link #resize}; volatile, since a resize may run beside the getter. */
    private volatile int capacity;

    /**
     * Makes an open CQ.
     *
     * @param <C> the provider's context class
     * @param context the context it was created on, which destroys it when it closes
     * @param closeLock the lock the close holds around {@code ibv_destroy_cq}; null for the CQ's monitor
     * @param channel the completion channel its events go to, or null
     * @param capacity the number of completions it holds, as the device made it ({@code ibv_cq.cqe}, which may
     *     be more than asked for)
     * @throws NullPointerException if {@code context} is null
     */
    protected <C extends AbstractVerbsObject & Context> AbstractCompletionQueue(C context, Object closeLock,
            CompletionChannel channel, int capacity) {
        super("CompletionQueue", Objects.requireNonNull(context, "context"), closeLock);
        this.context = context;
        this.channel = channel;
        this.capacity = capacity;
    }

    // ---- what a provider binds

    /**
     * Reads up to {@code batch.capacity()} completions into the cleared {@code batch}. Runs after the checks
     * of {@link #poll}; a provider whose close may free what this reads holds the close lock around it and
     * checks {@link #checkOpen()} again under it.
     *
     * @param batch the batch, cleared
     * @return the number of completions read, 0 or more
     * @throws org.verbs4j.VerbsException if the device fails the poll
     */
    protected abstract int pollInto(WorkCompletionBatch batch);

    /**
     * Arms the CQ ({@code ibv_req_notify_cq}); runs once the CQ is known to be open and to have a channel.
     *
     * @param solicitedOnly whether only a solicited completion (or an error) raises the event
     * @throws org.verbs4j.VerbsException if the device fails the request
     */
    protected abstract void arm(boolean solicitedOnly);

    /**
     * Sets the moderation ({@code ibv_modify_cq} with {@code IBV_CQ_ATTR_MODERATE}); runs once the CQ is known to
     * be open, the device to have moderation and both values to be within its {@code cq_mod_caps}.
     *
     * @param cqCount completions per event
     * @param cqPeriodMicros the longest delay of an event, microseconds
     * @throws org.verbs4j.VerbsException if the device fails the request
     */
    protected abstract void moderate(int cqCount, int cqPeriodMicros);

    /**
     * Resizes the CQ ({@code ibv_resize_cq}); runs once {@code cqe} is known to be at least 1. A provider whose
     * close may free what this uses holds the close lock around it and checks {@link #checkOpen()} again under it.
     *
     * @param cqe the least number of entries, at least 1
     * @return the number of entries the device granted, at least {@code cqe}
     * @throws org.verbs4j.VerbsException if the device refuses the size ({@code EINVAL}: above max_cqe, or below the
     *     completions queued) or cannot resize ({@code EOPNOTSUPP})
     */
    protected abstract int resizeTo(int cqe);

    // ---- the object model

    @Override
    public final Context context() {
        checkOpen();
        return context;
    }

    @Override
    public final int capacity() {
        checkOpen();
        return capacity;
    }

    @Override
    public final CompletionChannel channel() {
        checkOpen();
        return channel;
    }

    @Override
    public final int poll(WorkCompletionBatch batch) {
        checkOpen();
        Objects.requireNonNull(batch, "batch");
        batch.clear();
        return pollInto(batch);
    }

    @Override
    public final void requestNotify(boolean solicitedOnly) {
        checkOpen();
        if (channel == null) {
            throw new IllegalStateException("the CQ has no completion channel to notify (ibv_req_notify_cq(3))");
        }
        arm(solicitedOnly);
    }

    @Override
    public final void modifyModeration(int cqCount, int cqPeriodMicros) {
        checkOpen();
        Capabilities caps = context.capabilities();
        if (!caps.cqModeration()) {
            throw new VerbsException("ibv_modify_cq", Errno.EOPNOTSUPP, "the device has no CQ moderation");
        }
        if (cqCount < 0 || cqCount > caps.maxCqModerationCount()) {
            throw new VerbsException("ibv_modify_cq", Errno.EINVAL,
                    "cq_count " + cqCount + " is outside 0.." + caps.maxCqModerationCount() + " (cq_mod_caps)");
        }
        if (cqPeriodMicros < 0 || cqPeriodMicros > caps.maxCqModerationPeriod()) {
            throw new VerbsException("ibv_modify_cq", Errno.EINVAL, "cq_period " + cqPeriodMicros
                    + " us is outside 0.." + caps.maxCqModerationPeriod() + " (cq_mod_caps)");
        }
        moderate(cqCount, cqPeriodMicros);
    }

    /** Under the CQ's monitor, so that of two resizes {@link #capacity()} keeps the later one's answer. */
    @Override
    public final synchronized int resize(int cqe) {
        checkOpen();
        if (cqe < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, not " + cqe + " (ibv_resize_cq(3))");
        }
        int granted = resizeTo(cqe);
        capacity = granted;
        return granted;
    }
}
