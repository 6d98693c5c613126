package org.verbs4j;

/**
 * A port's attributes, {@code struct ibv_port_attr}.
 *
 * @param state logical port state
 * @param maxMtu largest MTU the port supports
 * @param activeMtu MTU in use
 * @param gidTblLen entries in the GID table
 * @param portCapFlags {@code IBV_PORT_*} capability bits
 * @param maxMsgSz largest message, bytes
 * @param badPkeyCntr bad P_Key counter
 * @param qkeyViolCntr Q_Key violation counter
 * @param pkeyTblLen entries in the P_Key table
 * @param lid base LID (0 on RoCE)
 * @param smLid subnet manager LID
 * @param lmc LID mask control
 * @param maxVlNum most virtual lanes
 * @param smSl subnet manager service level
 * @param subnetTimeout subnet propagation delay exponent
 * @param initTypeReply init type reply
 * @param activeWidth active link width code
 * @param activeSpeed active link speed code
 * @param physState physical port state code (5 is LinkUp)
 * @param linkLayer link layer
 * @param flags {@code IBV_QPF_*} flags (GRH required)
 * @param portCapFlags2 {@code IBV_PORT_*2} capability bits
 * @see "ibv_query_port(3)"
 */
public record PortAttributes(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTblLen,
        int portCapFlags,
        long maxMsgSz,
        int badPkeyCntr,
        int qkeyViolCntr,
        int pkeyTblLen,
        int lid,
        int smLid,
        int lmc,
        int maxVlNum,
        int smSl,
        int subnetTimeout,
        int initTypeReply,
        int activeWidth,
        int activeSpeed,
        int physState,
        LinkLayer linkLayer,
        int flags,
        int portCapFlags2) {}
