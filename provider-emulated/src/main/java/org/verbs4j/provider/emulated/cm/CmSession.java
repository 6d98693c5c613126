package org.verbs4j.provider.emulated.cm;

import java.net.InetSocketAddress;

import org.verbs4j.Gid;
import org.verbs4j.Mtu;

/** One connection's IB CM state on a wire device's {@link CmAgent}. Guarded by the connection manager's lock. */
public final class CmSession {
    final EmulatedCmId id;
    final int localCommId;
    int remoteCommId;
    long remoteGuid;
    long tid;
    InetSocketAddress peer;
    Gid remoteGid;
    int remoteQpn;
    int remotePsn;
    Mtu mtu;
    /** The REQ's values the passive side's QP takes on accept. */
    int reqRetryCount;
    int reqRnrRetryCount;
    /** The last message that waits for an answer (REQ, REP, DREQ), its bytes, and how often it may go again. */
    int pendingAttr;
    byte[] pending;
    int retriesLeft;
    /** Counts pending messages, so that a timer of an answered one does nothing. */
    int generation;
    /** The last REP or RTU sent, for a duplicate REQ or REP. */
    byte[] answer;

    CmSession(EmulatedCmId id, int localCommId) {
        this.id = id;
        this.localCommId = localCommId;
    }

    /** The pending message was answered: its retries stop. */
    void settle() {
        pending = null;
        generation++;
    }
}
