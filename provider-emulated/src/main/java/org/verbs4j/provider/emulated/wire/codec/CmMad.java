package org.verbs4j.provider.emulated.wire.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One communication management MAD (IBA vol. 1, 13.4 for the MAD base header and 12.6 for the CM messages;
 * Linux's {@code ibta_vol1_c12.h} and {@code cm_msgs.h} describe the same offsets): the 24-byte MAD header, then
 * REQ, REP, RTU, REJ, DREQ, DREP or MRA, 256 bytes in all. Fields are kept as the wire has them (QPNs and PSNs
 * 24 bits, timeouts 5 bits); a field the message does not carry keeps a stale value and is neither written nor
 * read. Mutable and reused; buffers are big-endian and addressed from {@code base}.
 *
 * <p>The IBA numbers a byte's bits from the most significant (bit 0), so "byte 43 bits 0..4" below is the high five
 * bits of that byte. Offsets in the comments are from the start of the CM message, after the MAD header.
 */
public final class CmMad {
    /** A MAD's length: the UD payload of a GSI datagram. */
    public static final int LENGTH = 256;
    /** The Q_Key of the GSI QP, QP1 (IBA 10.2.4.3.1). */
    public static final int GSI_QKEY = 0x80010000;
    /** The general services QP. */
    public static final int GSI_QPN = 1;

    public static final int BASE_VERSION = 1;
    /** The CM's management class. */
    public static final int MGMT_CLASS_CM = 0x07;
    /** The CM class version of IBA 1.2, as Linux's ib_cm sends and expects. */
    public static final int CLASS_VERSION = 2;
    /** Every CM message is a Send. */
    public static final int METHOD_SEND = 0x03;

    public static final int ATTR_REQ = 0x0010;
    public static final int ATTR_MRA = 0x0011;
    public static final int ATTR_REJ = 0x0012;
    public static final int ATTR_REP = 0x0013;
    public static final int ATTR_RTU = 0x0014;
    public static final int ATTR_DREQ = 0x0015;
    public static final int ATTR_DREP = 0x0016;

    /** A REJ's "message rejected" field: the REQ, the REP, or another message. */
    public static final int REJECTED_REQ = 0;
    public static final int REJECTED_REP = 1;
    public static final int REJECTED_OTHER = 2;

    /** Private data after each message's fields, bytes. */
    public static final int REQ_PRIVATE_DATA = 92;
    public static final int REP_PRIVATE_DATA = 196;
    public static final int REJ_PRIVATE_DATA = 148;
    public static final int RTU_PRIVATE_DATA = 224;
    public static final int DREQ_PRIVATE_DATA = 220;
    public static final int DREP_PRIVATE_DATA = 224;

    /** The LID a RoCE path carries on both ends (permissive). */
    public static final int PERMISSIVE_LID = 0xffff;

    private static final int HDR = 24;

    // MAD header.
    public int baseVersion = BASE_VERSION;
    public int mgmtClass = MGMT_CLASS_CM;
    public int classVersion = CLASS_VERSION;
    public int method = METHOD_SEND;
    public long transactionId;
    public int attributeId;

    // Common to every CM message.
    public int localCommId;
    public int remoteCommId;

    // REQ and REP.
    public long serviceId;
    public long localCaGuid;
    public int localQkey;
    public int localQpn;
    public int responderResources;
    public int initiatorDepth;
    public int startingPsn;
    public int rnrRetryCount;
    // REQ.
    public int remoteCmResponseTimeout;
    public int transportServiceType;
    public int localCmResponseTimeout;
    public int retryCount;
    public int pkey = Packet.DEFAULT_PKEY;
    /** The path MTU as the IBA encodes it (1 = 256 ... 5 = 4096). */
    public int pathMtu;
    public int maxCmRetries;
    public int localLid = PERMISSIVE_LID;
    public int remoteLid = PERMISSIVE_LID;
    public final byte[] localGid = new byte[16];
    public final byte[] remoteGid = new byte[16];
    public int flowLabel;
    public int packetRate;
    public int trafficClass;
    public int hopLimit;
    public int sl;
    public boolean subnetLocal;
    public int localAckTimeout;
    // REP.
    public int targetAckDelay;
    public int failoverAccepted;
    public boolean endToEndFlowControl;
    public boolean srq;
    // REJ.
    public int messageRejected;
    public int rejectInfoLength;
    public int reason;
    // DREQ.
    public int remoteQpn;
    // MRA.
    public int messageMraed;
    public int serviceTimeout;
    /** The message's private data, {@link #privateDataLength(int)} bytes. */
    public byte[] privateData = new byte[0];

    /** The private data a message of {@code attributeId} carries, bytes; 0 for a message this class does not know. */
    public static int privateDataLength(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> REQ_PRIVATE_DATA;
            case ATTR_REP -> REP_PRIVATE_DATA;
            case ATTR_REJ -> REJ_PRIVATE_DATA;
            case ATTR_RTU -> RTU_PRIVATE_DATA;
            case ATTR_DREQ -> DREQ_PRIVATE_DATA;
            case ATTR_DREP -> DREP_PRIVATE_DATA;
            default -> 0;
        };
    }

    private static int privateDataOffset(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> 140;
            case ATTR_REP -> 36;
            case ATTR_REJ -> 84;
            case ATTR_RTU, ATTR_DREP -> 8;
            case ATTR_DREQ -> 12;
            default -> LENGTH - HDR;
        };
    }

    /** Starts a message: the header's constants, its attribute and transaction ID, no private data. */
    public CmMad begin(int attribute, long tid) {
        baseVersion = BASE_VERSION;
        mgmtClass = MGMT_CLASS_CM;
        classVersion = CLASS_VERSION;
        method = METHOD_SEND;
        attributeId = attribute;
        transactionId = tid;
        privateData = new byte[0];
        return this;
    }

    /**
     * Writes the {@value #LENGTH} bytes of the MAD into {@code buf} from {@code base}; reserved bytes and private
     * data past {@link #privateData} are zero.
     *
     * @throws IllegalArgumentException if the attribute is not one this class writes, or the private data is longer
     *         than the message carries
     */
    public void write(ByteBuffer buf, int base) {
        int pdLength = privateDataLength(attributeId);
        if (pdLength == 0) {
            throw new IllegalArgumentException("CM attribute 0x" + Integer.toHexString(attributeId) + " is not written");
        }
        if (privateData.length > pdLength) {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes; the message carries "
                    + pdLength);
        }
        buf.order(ByteOrder.BIG_ENDIAN);
        for (int i = 0; i < LENGTH; i++) {
            buf.put(base + i, (byte) 0);
        }
        buf.put(base, (byte) baseVersion);
        buf.put(base + 1, (byte) mgmtClass);
        buf.put(base + 2, (byte) classVersion);
        buf.put(base + 3, (byte) method);
        buf.putLong(base + 8, transactionId);
        buf.putShort(base + 16, (short) attributeId);
        int m = base + HDR;
        buf.putInt(m, localCommId);
        switch (attributeId) {
            case ATTR_REQ -> writeReq(buf, m);
            case ATTR_REP -> writeRep(buf, m);
            case ATTR_REJ -> {
                buf.putInt(m + 4, remoteCommId);
                buf.put(m + 8, (byte) (messageRejected << 6));
                buf.put(m + 9, (byte) (rejectInfoLength << 1));
                buf.putShort(m + 10, (short) reason);
            }
            case ATTR_DREQ -> {
                buf.putInt(m + 4, remoteCommId);
                buf.putInt(m + 8, remoteQpn << 8);
            }
            default -> buf.putInt(m + 4, remoteCommId);
        }
        buf.put(m + privateDataOffset(attributeId), privateData);
    }

    private void writeReq(ByteBuffer buf, int m) {
        buf.putLong(m + 8, serviceId);
        buf.putLong(m + 16, localCaGuid);
        buf.putInt(m + 28, localQkey);
        buf.putInt(m + 32, localQpn << 8 | responderResources & 0xff);
        buf.putInt(m + 36, initiatorDepth & 0xff);
        buf.put(m + 43, (byte) (remoteCmResponseTimeout << 3 | (transportServiceType & 3) << 1));
        buf.putInt(m + 44, startingPsn << 8 | (localCmResponseTimeout & 0x1f) << 3 | retryCount & 7);
        buf.putShort(m + 48, (short) pkey);
        buf.put(m + 50, (byte) ((pathMtu & 0xf) << 4 | rnrRetryCount & 7));
        buf.put(m + 51, (byte) ((maxCmRetries & 0xf) << 4 | (srq ? 0x08 : 0)));
        buf.putShort(m + 52, (short) localLid);
        buf.putShort(m + 54, (short) remoteLid);
        buf.put(m + 56, localGid);
        buf.put(m + 72, remoteGid);
        buf.putInt(m + 88, flowLabel << 12 | packetRate & 0x3f);
        buf.put(m + 92, (byte) trafficClass);
        buf.put(m + 93, (byte) hopLimit);
        buf.put(m + 94, (byte) ((sl & 0xf) << 4 | (subnetLocal ? 0x08 : 0)));
        buf.put(m + 95, (byte) ((localAckTimeout & 0x1f) << 3));
    }

    private void writeRep(ByteBuffer buf, int m) {
        buf.putInt(m + 4, remoteCommId);
        buf.putInt(m + 8, localQkey);
        buf.putInt(m + 12, localQpn << 8);
        buf.putInt(m + 20, startingPsn << 8);
        buf.put(m + 24, (byte) responderResources);
        buf.put(m + 25, (byte) initiatorDepth);
        buf.put(m + 26, (byte) ((targetAckDelay & 0x1f) << 3 | (failoverAccepted & 3) << 1
                | (endToEndFlowControl ? 1 : 0)));
        buf.put(m + 27, (byte) ((rnrRetryCount & 7) << 5 | (srq ? 0x10 : 0)));
        buf.putLong(m + 28, localCaGuid);
    }

    /**
     * Reads a MAD of {@code length} bytes from {@code buf} at {@code base}. Returns null if it is a CM message this
     * class reads (REQ, MRA, REJ, REP, RTU, DREQ, DREP), else why not.
     */
    public String parse(ByteBuffer buf, int base, int length) {
        if (length < LENGTH) {
            return "a MAD of " + length + " bytes, not " + LENGTH;
        }
        buf.order(ByteOrder.BIG_ENDIAN);
        baseVersion = buf.get(base) & 0xff;
        mgmtClass = buf.get(base + 1) & 0xff;
        classVersion = buf.get(base + 2) & 0xff;
        method = buf.get(base + 3) & 0xff;
        transactionId = buf.getLong(base + 8);
        attributeId = buf.getShort(base + 16) & 0xffff;
        if (baseVersion != BASE_VERSION || mgmtClass != MGMT_CLASS_CM || classVersion != CLASS_VERSION
                || method != METHOD_SEND) {
            return "not a CM Send of class version 2 (base " + baseVersion + ", class 0x"
                    + Integer.toHexString(mgmtClass) + ", version " + classVersion + ", method 0x"
                    + Integer.toHexString(method) + ")";
        }
        int m = base + HDR;
        localCommId = buf.getInt(m);
        switch (attributeId) {
            case ATTR_REQ -> parseReq(buf, m);
            case ATTR_REP -> parseRep(buf, m);
            case ATTR_REJ -> {
                remoteCommId = buf.getInt(m + 4);
                messageRejected = (buf.get(m + 8) & 0xff) >> 6;
                rejectInfoLength = (buf.get(m + 9) & 0xff) >> 1;
                reason = buf.getShort(m + 10) & 0xffff;
            }
            case ATTR_DREQ -> {
                remoteCommId = buf.getInt(m + 4);
                remoteQpn = buf.getInt(m + 8) >>> 8;
            }
            case ATTR_RTU, ATTR_DREP -> remoteCommId = buf.getInt(m + 4);
            case ATTR_MRA -> {
                remoteCommId = buf.getInt(m + 4);
                messageMraed = (buf.get(m + 8) & 0xff) >> 6;
                serviceTimeout = (buf.get(m + 9) & 0xff) >> 3;
                privateData = new byte[0];
                return null;
            }
            default -> {
                return "CM attribute 0x" + Integer.toHexString(attributeId) + " is not handled";
            }
        }
        privateData = new byte[privateDataLength(attributeId)];
        buf.get(m + privateDataOffset(attributeId), privateData);
        return null;
    }

    private void parseReq(ByteBuffer buf, int m) {
        serviceId = buf.getLong(m + 8);
        localCaGuid = buf.getLong(m + 16);
        localQkey = buf.getInt(m + 28);
        int w = buf.getInt(m + 32);
        localQpn = w >>> 8;
        responderResources = w & 0xff;
        initiatorDepth = buf.get(m + 39) & 0xff;
        int b = buf.get(m + 43) & 0xff;
        remoteCmResponseTimeout = b >> 3;
        transportServiceType = b >> 1 & 3;
        w = buf.getInt(m + 44);
        startingPsn = w >>> 8;
        localCmResponseTimeout = w >> 3 & 0x1f;
        retryCount = w & 7;
        pkey = buf.getShort(m + 48) & 0xffff;
        b = buf.get(m + 50) & 0xff;
        pathMtu = b >> 4;
        rnrRetryCount = b & 7;
        b = buf.get(m + 51) & 0xff;
        maxCmRetries = b >> 4;
        srq = (b & 0x08) != 0;
        localLid = buf.getShort(m + 52) & 0xffff;
        remoteLid = buf.getShort(m + 54) & 0xffff;
        buf.get(m + 56, localGid);
        buf.get(m + 72, remoteGid);
        w = buf.getInt(m + 88);
        flowLabel = w >>> 12;
        packetRate = w & 0x3f;
        trafficClass = buf.get(m + 92) & 0xff;
        hopLimit = buf.get(m + 93) & 0xff;
        b = buf.get(m + 94) & 0xff;
        sl = b >> 4;
        subnetLocal = (b & 0x08) != 0;
        localAckTimeout = (buf.get(m + 95) & 0xff) >> 3;
    }

    private void parseRep(ByteBuffer buf, int m) {
        remoteCommId = buf.getInt(m + 4);
        localQkey = buf.getInt(m + 8);
        localQpn = buf.getInt(m + 12) >>> 8;
        startingPsn = buf.getInt(m + 20) >>> 8;
        responderResources = buf.get(m + 24) & 0xff;
        initiatorDepth = buf.get(m + 25) & 0xff;
        int b = buf.get(m + 26) & 0xff;
        targetAckDelay = b >> 3;
        failoverAccepted = b >> 1 & 3;
        endToEndFlowControl = (b & 1) != 0;
        b = buf.get(m + 27) & 0xff;
        rnrRetryCount = b >> 5;
        srq = (b & 0x10) != 0;
        localCaGuid = buf.getLong(m + 28);
    }

    /** The name of a CM attribute, for logs. */
    public static String name(int attributeId) {
        return switch (attributeId) {
            case ATTR_REQ -> "REQ";
            case ATTR_MRA -> "MRA";
            case ATTR_REJ -> "REJ";
            case ATTR_REP -> "REP";
            case ATTR_RTU -> "RTU";
            case ATTR_DREQ -> "DREQ";
            case ATTR_DREP -> "DREP";
            default -> "0x" + Integer.toHexString(attributeId);
        };
    }

    @Override
    public String toString() {
        return name(attributeId) + " tid=0x" + Long.toHexString(transactionId) + " local=0x"
                + Integer.toHexString(localCommId) + " remote=0x" + Integer.toHexString(remoteCommId)
                + " private=" + Arrays.toString(Arrays.copyOf(privateData, Math.min(8, privateData.length)));
    }
}
