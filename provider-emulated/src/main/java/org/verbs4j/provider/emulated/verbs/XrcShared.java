package org.verbs4j.provider.emulated.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.verbs4j.Errno;
import org.verbs4j.VerbsException;
import org.verbs4j.XrcDomain;

/**
 * What the handles of one XRC domain share ({@code ibv_open_xrcd(3)}): its XRC SRQs by number, which the XRC_RECV
 * QPs deliver into, and those QPs by number, which {@code ibv_open_qp} opens. A domain opened with no file belongs
 * to its one handle; one opened with a file is the device's domain of that file's inode, shared by every handle
 * that opens the same file, and forgotten when its last handle closes.
 */
final class XrcShared {
    /** The XRC SRQs of the domain, by SRQ number. */
    final Map<Integer, EmulatedSharedReceiveQueue> srqs = new ConcurrentHashMap<>();
    /** The XRC_RECV QPs of the domain, by QPN. */
    final Map<Integer, EmulatedQueuePair> qps = new ConcurrentHashMap<>();
    private final Map<String, XrcShared> byInode;
    private final String inode;
    /** Open handles; guarded by {@link #byInode}'s monitor (a domain with no file has one handle). */
    private int handles = 1;

    private XrcShared(Map<String, XrcShared> byInode, String inode) {
        this.byInode = byInode;
        this.inode = inode;
    }

    /**
     * Opens a domain as {@code ibv_open_xrcd} does: a new one for {@code fd} -1, else the device's domain of the
     * file's inode, created under {@code O_CREAT}.
     *
     * @param byInode the device's domains by inode
     * @param fd a file descriptor or -1, as {@code Arguments.openXrcd} checked
     * @param oflags {@code O_CREAT} and {@code O_EXCL} bits
     * @return the domain, with this handle counted
     * @throws VerbsException {@code EINVAL} for -1 without {@code O_CREAT}, a file with no domain and no
     *     {@code O_CREAT}, or one with a domain and {@code O_EXCL}; {@code EBADF} for a descriptor that is not open
     */
    static XrcShared open(Map<String, XrcShared> byInode, int fd, int oflags) {
        boolean create = (oflags & XrcDomain.O_CREAT) != 0;
        if (fd == -1) {
            if (!create) {
                throw new VerbsException("ibv_open_xrcd", Errno.EINVAL, "fd -1 needs O_CREAT: there is nothing to open");
            }
            return new XrcShared(null, null);
        }
        String inode = inodeOf(fd);
        synchronized (byInode) {
            XrcShared d = byInode.get(inode);
            if (d == null) {
                if (!create) {
                    throw new VerbsException("ibv_open_xrcd", Errno.EINVAL,
                            "the file of fd " + fd + " has no XRC domain on this device, and O_CREAT is not set");
                }
                d = new XrcShared(byInode, inode);
                byInode.put(inode, d);
                return d;
            }
            if ((oflags & XrcDomain.O_EXCL) != 0) {
                throw new VerbsException("ibv_open_xrcd", Errno.EINVAL,
                        "the file of fd " + fd + " has an XRC domain on this device already (O_EXCL)");
            }
            d.handles++;
            return d;
        }
    }

    /** A handle closed: the last one of a file's domain takes it off the device. */
    void release() {
        if (byInode == null) {
            return;
        }
        synchronized (byInode) {
            if (--handles == 0) {
                byInode.remove(inode);
            }
        }
    }

    /** The device and inode numbers of the open file {@code fd}, as {@code fstat(2)} gives them. */
    private static String inodeOf(int fd) {
        Path link = Path.of("/proc/self/fd", Integer.toString(fd));
        try {
            Map<String, Object> a = new HashMap<>(Files.readAttributes(link, "unix:dev,ino"));
            return a.get("dev") + ":" + a.get("ino");
        } catch (IOException | UnsupportedOperationException e) {
            throw new VerbsException("ibv_open_xrcd", Errno.EBADF, "fd " + fd + " is not an open file descriptor");
        }
    }
}
