package org.verbs4j.provider.nativecommon.internal;

/**
 * How a C function reports failure, as a {@link CFunction} declares it; a binding applies it to every call, so the
 * declared method answers in {@link NativeErrors}' contract.
 */
public enum ErrnoConvention {
    /** An {@code int}: 0 (or a non-negative result), else the errno, −1 with {@code errno} set, or −errno. */
    RETURNED {
        @Override
        public long toContract(long raw, int errno) {
            return NativeErrors.ofInt((int) raw, errno);
        }
    },
    /** A pointer: the object, or NULL with {@code errno} set. */
    NULL_SETS {
        @Override
        public long toContract(long raw, int errno) {
            return NativeErrors.ofAddress(raw, errno);
        }
    },
    /** No failure to report ({@code void}, a name, a flag set): the value as it is. */
    NONE {
        @Override
        public long toContract(long raw, int errno) {
            return raw;
        }
    },
    /**
     * An {@code int} that is 0 on success, else a negative code of the function's own with {@code errno} set
     * ({@code ibv_rereg_mr}'s {@code IBV_REREG_MR_ERR_*}): −errno, the code dropped. A positive result is taken as
     * the errno itself, as a provider op may answer.
     */
    CODE_SETS {
        @Override
        public long toContract(long raw, int errno) {
            return (int) raw > 0 ? -(int) raw : NativeErrors.ofInt(-1, errno);
        }
    },
    /**
     * An index or a count ({@code int} or {@code ssize_t}): the value when non-negative, else −1 with {@code errno}
     * set, or −errno. {@link #RETURNED} cannot carry it, as it reads a positive result as an errno.
     */
    NONNEGATIVE {
        @Override
        public long toContract(long raw, int errno) {
            return NativeErrors.ofInt((int) raw, errno);
        }
    };

    /**
     * Whether a raw result is a failure, so that {@code errno} must be read.
     *
     * @param raw what the function returned, widened to {@code long}
     * @return whether it failed
     */
    public boolean failed(long raw) {
        return switch (this) {
            case RETURNED, CODE_SETS -> (int) raw != 0;
            case NULL_SETS -> raw == 0;
            case NONE -> false;
            case NONNEGATIVE -> (int) raw < 0; // an int result may come zero-extended; a count stays below 2^31
        };
    }

    /**
     * A failed result in the contract.
     *
     * @param raw what the function returned, widened to {@code long}
     * @param errno the {@code errno} captured after the call
     * @return −errno (or the value, for {@link #NONE})
     */
    public abstract long toContract(long raw, int errno);
}
