package org.verbs4j;

/**
 * The Linux errno values that verbs report, with their names.
 *
 * <p>verbs4j reports the Linux numbers on every provider, the emulated one included, so that a
 * number means the same thing wherever it is seen.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int ERANGE = 34;
    public static final int ENOSYS = 38;
    public static final int ENODATA = 61;
    public static final int EPROTO = 71;
    public static final int EOVERFLOW = 75;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int ENETDOWN = 100;
    public static final int ENOBUFS = 105;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int ECANCELED = 125;

    private static final String[] NAMES = new String[126];

    static {
        NAMES[EPERM] = "EPERM";
        NAMES[ENOENT] = "ENOENT";
        NAMES[EINTR] = "EINTR";
        NAMES[EIO] = "EIO";
        NAMES[ENXIO] = "ENXIO";
        NAMES[E2BIG] = "E2BIG";
        NAMES[EBADF] = "EBADF";
        NAMES[EAGAIN] = "EAGAIN";
        NAMES[ENOMEM] = "ENOMEM";
        NAMES[EACCES] = "EACCES";
        NAMES[EFAULT] = "EFAULT";
        NAMES[EBUSY] = "EBUSY";
        NAMES[EEXIST] = "EEXIST";
        NAMES[ENODEV] = "ENODEV";
        NAMES[EINVAL] = "EINVAL";
        NAMES[EMFILE] = "EMFILE";
        NAMES[ENOSPC] = "ENOSPC";
        NAMES[ERANGE] = "ERANGE";
        NAMES[ENOSYS] = "ENOSYS";
        NAMES[ENODATA] = "ENODATA";
        NAMES[EPROTO] = "EPROTO";
        NAMES[EOVERFLOW] = "EOVERFLOW";
        NAMES[EPROTONOSUPPORT] = "EPROTONOSUPPORT";
        NAMES[EOPNOTSUPP] = "EOPNOTSUPP";
        NAMES[ENETDOWN] = "ENETDOWN";
        NAMES[ENOBUFS] = "ENOBUFS";
        NAMES[ETIMEDOUT] = "ETIMEDOUT";
        NAMES[ECONNREFUSED] = "ECONNREFUSED";
        NAMES[ECANCELED] = "ECANCELED";
    }

    private Errno() {}

    /** {@return the symbolic name of an errno value, such as {@code EINVAL}, or {@code errno 42} when unknown} */
    public static String name(int errno) {
        String n = errno > 0 && errno < NAMES.length ? NAMES[errno] : null;
        return n != null ? n : "errno " + errno;
    }
}
