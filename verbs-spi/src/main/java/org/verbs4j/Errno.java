package org.verbs4j;

/**
 * The Linux errno values that verbs report, with their names.
 *
 * <p>verbs4j reports the Linux numbers on every provider, the emulated one included, so that a
 * number means the same thing wherever it is seen.
 */
public final class Errno {
    /** {@code EPERM} (1): operation not permitted. */
    public static final int EPERM = 1;
    /** {@code ENOENT} (2): no such entry. */
    public static final int ENOENT = 2;
    /** {@code EINTR} (4): interrupted system call. */
    public static final int EINTR = 4;
    /** {@code EIO} (5): input/output error. */
    public static final int EIO = 5;
    /** {@code ENXIO} (6): no such device or address. */
    public static final int ENXIO = 6;
    /** {@code E2BIG} (7): argument list too long. */
    public static final int E2BIG = 7;
    /** {@code EBADF} (9): bad file descriptor. */
    public static final int EBADF = 9;
    /** {@code EAGAIN} (11): resource temporarily unavailable (a queue is full). */
    public static final int EAGAIN = 11;
    /** {@code ENOMEM} (12): cannot allocate memory, or a queue is full. */
    public static final int ENOMEM = 12;
    /** {@code EACCES} (13): permission denied. */
    public static final int EACCES = 13;
    /** {@code EFAULT} (14): bad address. */
    public static final int EFAULT = 14;
    /** {@code EBUSY} (16): device or resource busy (the object is still in use). */
    public static final int EBUSY = 16;
    /** {@code EEXIST} (17): already exists. */
    public static final int EEXIST = 17;
    /** {@code ENODEV} (19): no such device. */
    public static final int ENODEV = 19;
    /** {@code EINVAL} (22): invalid argument. */
    public static final int EINVAL = 22;
    /** {@code EMFILE} (24): too many open files. */
    public static final int EMFILE = 24;
    /** {@code ENOSPC} (28): no space left (a table is full). */
    public static final int ENOSPC = 28;
    /** {@code ERANGE} (34): result out of range. */
    public static final int ERANGE = 34;
    /** {@code ENOSYS} (38): function not implemented. */
    public static final int ENOSYS = 38;
    /** {@code ENODATA} (61): no data available. */
    public static final int ENODATA = 61;
    /** {@code EPROTO} (71): protocol error. */
    public static final int EPROTO = 71;
    /** {@code EOVERFLOW} (75): value too large. */
    public static final int EOVERFLOW = 75;
    /** {@code EPROTONOSUPPORT} (93): protocol not supported. */
    public static final int EPROTONOSUPPORT = 93;
    /** {@code EOPNOTSUPP} (95): operation not supported by the device. */
    public static final int EOPNOTSUPP = 95;
    /** {@code EADDRINUSE} (98): address already in use. */
    public static final int EADDRINUSE = 98;
    /** {@code EADDRNOTAVAIL} (99): cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** {@code ENETDOWN} (100): network is down. */
    public static final int ENETDOWN = 100;
    /** {@code ENOBUFS} (105): no buffer space available. */
    public static final int ENOBUFS = 105;
    /** {@code ETIMEDOUT} (110): timed out. */
    public static final int ETIMEDOUT = 110;
    /** {@code ECONNREFUSED} (111): connection refused. */
    public static final int ECONNREFUSED = 111;
    /** {@code ECANCELED} (125): operation canceled. */
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
        NAMES[EADDRINUSE] = "EADDRINUSE";
        NAMES[EADDRNOTAVAIL] = "EADDRNOTAVAIL";
        NAMES[ENETDOWN] = "ENETDOWN";
        NAMES[ENOBUFS] = "ENOBUFS";
        NAMES[ETIMEDOUT] = "ETIMEDOUT";
        NAMES[ECONNREFUSED] = "ECONNREFUSED";
        NAMES[ECANCELED] = "ECANCELED";
    }

    private Errno() {}

    /**
     * {@return the symbolic name of an errno value, such as {@code EINVAL}, or {@code errno 42} when unknown}
     *
     * @param errno a Linux errno value
     */
    public static String name(int errno) {
        String n = errno > 0 && errno < NAMES.length ? NAMES[errno] : null;
        return n != null ? n : "errno " + errno;
    }
}
