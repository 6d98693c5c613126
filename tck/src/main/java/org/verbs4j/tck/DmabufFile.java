package org.verbs4j.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file on tmpfs that stands in for a dma-buf: open, of a fixed size, with the number of its file descriptor,
 * which Java does not expose and this finds among {@code /proc/self/fd}'s links. Deleted when closed.
 */
final class DmabufFile implements AutoCloseable {
    private final Path path;
    private final FileChannel channel;
    private final int fd;

    private DmabufFile(Path path, FileChannel channel, int fd) {
        this.path = path;
        this.channel = channel;
        this.fd = fd;
    }

    /**
     * Makes a zeroed file of {@code size} bytes, in {@code /dev/shm} where there is one.
     *
     * @param size its size, bytes
     * @return the open file
     */
    static DmabufFile create(long size) {
        try {
            Path shm = Path.of("/dev/shm");
            Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
            Path path = Files.createTempFile(dir, "verbs4j-dmabuf-", ".bin").toRealPath();
            FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            channel.write(ByteBuffer.allocate(1), size - 1);
            return new DmabufFile(path, channel, fdOf(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int fdOf(Path path) throws IOException {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path link : fds) {
                try {
                    if (Files.readSymbolicLink(link).equals(path)) {
                        return Integer.parseInt(link.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // an fd closed while listing
                }
            }
        }
        throw new IOException("no fd of " + path + " in /proc/self/fd");
    }

    /** {@return its file descriptor} */
    int fd() {
        return fd;
    }

    /**
     * Reads bytes of the file.
     *
     * @param offset where, bytes
     * @param length how many
     * @return them
     */
    byte[] read(long offset, int length) {
        try {
            ByteBuffer b = ByteBuffer.allocate(length);
            while (b.hasRemaining() && channel.read(b, offset + b.position()) >= 0) {
                // until full
            }
            return b.array();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes bytes into the file.
     *
     * @param offset where, bytes
     * @param bytes what
     */
    void write(long offset, byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                channel.write(b, offset + b.position());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
