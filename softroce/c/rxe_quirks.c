/*
 * rxe_quirks: plain-libibverbs reproductions of the rxe behaviours behind the TCK rules that fail
 * through verbs4j's ffm provider in the soft-RoCE VM. Each check prints what rxe does next to what the
 * TCK rule expects, so a failure can be told apart from a provider bug.
 *
 *   gcc -O1 -o rxe_quirks rxe_quirks.c -libverbs && ./rxe_quirks [device]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_port_attr port;
static union ibv_gid gid;
static int gid_index = -1;
static char *buf;
static struct ibv_mr *mr;

static void die(const char *what) {
    fprintf(stderr, "rxe_quirks: %s failed: %s\n", what, strerror(errno));
    exit(2);
}

static struct ibv_qp *qp_new(struct ibv_cq *cq, enum ibv_qp_type type, int wr, uint64_t ops, int inline_sz) {
    struct ibv_qp_init_attr_ex a;
    memset(&a, 0, sizeof a);
    a.send_cq = cq;
    a.recv_cq = cq;
    a.qp_type = type;
    a.cap.max_send_wr = wr;
    a.cap.max_recv_wr = wr;
    a.cap.max_send_sge = 1;
    a.cap.max_recv_sge = 1;
    a.cap.max_inline_data = inline_sz;
    a.pd = pd;
    a.comp_mask = IBV_QP_INIT_ATTR_PD;
    if (ops) {
        a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
        a.send_ops_flags = ops;
    }
    struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);
    if (!qp)
        die("ibv_create_qp_ex");
    return qp;
}

static int to_init(struct ibv_qp *qp, int pkey_index) {
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.pkey_index = pkey_index;
    int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    if (qp->qp_type == IBV_QPT_UD) {
        a.qkey = 0x11111111;
        mask |= IBV_QP_QKEY;
    } else {
        a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
        mask |= IBV_QP_ACCESS_FLAGS;
    }
    return ibv_modify_qp(qp, &a, mask);
}

static void connect_to(struct ibv_qp *qp, uint32_t dest) {
    if (to_init(qp, 0))
        die("RESET->INIT");
    struct ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    int mask = IBV_QP_STATE;
    if (qp->qp_type != IBV_QPT_UD) {
        a.path_mtu = port.active_mtu;
        a.dest_qp_num = dest;
        a.rq_psn = 0;
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = gid;
        a.ah_attr.grh.sgid_index = gid_index;
        a.ah_attr.grh.hop_limit = 64;
        a.ah_attr.port_num = 1;
        mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
        if (qp->qp_type == IBV_QPT_RC) {
            a.max_dest_rd_atomic = 1;
            a.min_rnr_timer = 1;
            mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
        }
    }
    if (ibv_modify_qp(qp, &a, mask))
        die("INIT->RTR");
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 0;
    mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (qp->qp_type == IBV_QPT_RC) {
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = 7;
        a.max_rd_atomic = 1;
        mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    if (ibv_modify_qp(qp, &a, mask))
        die("RTR->RTS");
}

/* Polls one completion for up to 10 s; returns 0 and fills wc, or -1 on timeout. */
static int poll1(struct ibv_cq *cq, struct ibv_wc *wc) {
    time_t end = time(NULL) + 10;
    while (time(NULL) < end) {
        int n = ibv_poll_cq(cq, 1, wc);
        if (n < 0)
            die("ibv_poll_cq");
        if (n == 1)
            return 0;
    }
    return -1;
}

static void report(const char *rule, const char *observed, const char *expected) {
    printf("%-58s rxe: %-28s TCK expects: %s\n", rule, observed, expected);
}

static const char *status(struct ibv_cq *cq) {
    static char text[64];
    struct ibv_wc wc;
    if (poll1(cq, &wc))
        return "no completion in 10 s";
    snprintf(text, sizeof text, "%s", ibv_wc_status_str(wc.status));
    return text;
}

static void post_recv(struct ibv_qp *qp, uint64_t off, uint32_t len) {
    struct ibv_sge sge = {.addr = (uintptr_t)buf + off, .length = len, .lkey = mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;
    if (ibv_post_recv(qp, &wr, &bad))
        die("ibv_post_recv");
}

static int post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t off, uint32_t len, uint32_t lkey,
                     int flags) {
    struct ibv_sge sge = {.addr = (uintptr_t)buf + off, .length = len, .lkey = lkey};
    struct ibv_send_wr wr, *bad;
    memset(&wr, 0, sizeof wr);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED | flags;
    wr.wr.rdma.remote_addr = (uintptr_t)buf + 8192;
    wr.wr.rdma.rkey = mr->rkey;
    return ibv_post_send(qp, &wr, &bad);
}

int main(int argc, char **argv) {
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n == 0)
        die("ibv_get_device_list");
    struct ibv_device *dev = list[0];
    for (int i = 0; argc > 1 && i < n; i++)
        if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
            dev = list[i];
    ctx = ibv_open_device(dev);
    if (!ctx)
        die("ibv_open_device");
    if (ibv_query_port(ctx, 1, &port))
        die("ibv_query_port");
    for (int i = 0; i < port.gid_tbl_len && gid_index < 0; i++) {
        union ibv_gid g;
        if (ibv_query_gid(ctx, 1, i, &g) == 0 && g.raw[10] == 0xff && g.raw[11] == 0xff && g.raw[0] == 0)
            gid_index = i, gid = g;
    }
    if (gid_index < 0)
        die("finding a RoCE v2 IPv4 GID");
    pd = ibv_alloc_pd(ctx);
    buf = aligned_alloc(4096, 65536);
    memset(buf, 0, 65536);
    mr = ibv_reg_mr(pd, buf, 65536, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ
                    | IBV_ACCESS_REMOTE_ATOMIC);
    if (!pd || !mr)
        die("ibv_alloc_pd/ibv_reg_mr");
    printf("device %s, port MTU %d, GID index %d\n", ibv_get_device_name(dev), 128 << port.active_mtu, gid_index);

    struct ibv_cq *cq;
    struct ibv_qp *a, *b;
    char text[64];

    /* 1. wr_set_inline_data without IBV_SEND_INLINE in wr_flags. */
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    a = qp_new(cq, IBV_QPT_RC, 8, IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND, 64);
    b = qp_new(cq, IBV_QPT_RC, 8, 0, 0);
    connect_to(a, b->qp_num);
    connect_to(b, a->qp_num);
    struct ibv_qp_ex *x = ibv_qp_to_qp_ex(a);
    for (int flag = 0; flag <= 1; flag++) {
        char data[16] = "inline payload";
        ibv_wr_start(x);
        x->wr_id = 7;
        x->wr_flags = IBV_SEND_SIGNALED | (flag ? IBV_SEND_INLINE : 0);
        ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf + 4096);
        ibv_wr_set_inline_data(x, data, sizeof data);
        int rc = ibv_wr_complete(x);
        snprintf(text, sizeof text, "complete=%d, %s", rc, rc ? "-" : status(cq));
        report(flag ? "ibv_wr_set_inline_data, wr_flags SIGNALED|INLINE"
                    : "ibv_wr_set_inline_data, wr_flags SIGNALED only", text, "success");
        if (strstr(text, "success") == NULL) {
            /* the QP is in ERR now; bring a fresh pair up for the next check */
            ibv_destroy_qp(a);
            ibv_destroy_qp(b);
            a = qp_new(cq, IBV_QPT_RC, 8, IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND, 64);
            b = qp_new(cq, IBV_QPT_RC, 8, 0, 0);
            connect_to(a, b->qp_num);
            connect_to(b, a->qp_num);
            x = ibv_qp_to_qp_ex(a);
        }
    }

    /* 2. SEND with a bad lkey. */
    post_recv(b, 0, 64);
    post_send(a, IBV_WR_SEND, 0, 8, mr->lkey ^ 0x80, 0);
    report("SEND with a bad lkey, sender status", status(cq), "local protection error");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);
    ibv_destroy_cq(cq);

    /* 3. A SEND longer than the receive buffer. */
    struct ibv_cq *cqa = ibv_create_cq(ctx, 64, NULL, NULL, 0), *cqb = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    b = qp_new(cqb, IBV_QPT_RC, 8, 0, 0);
    connect_to(a, b->qp_num);
    connect_to(b, a->qp_num);
    post_recv(b, 0, 16);
    post_send(a, IBV_WR_SEND, 1024, 64, mr->lkey, 0);
    report("SEND of 64 bytes into a 16-byte receive, receiver", status(cqb), "local length error");
    report("SEND of 64 bytes into a 16-byte receive, sender", status(cqa), "remote invalid request error");

    /* 4. A receive posted on a QP in ERR. */
    struct ibv_qp_attr err = {.qp_state = IBV_QPS_ERR};
    ibv_modify_qp(b, &err, IBV_QP_STATE);
    while (ibv_poll_cq(cqb, 1, &(struct ibv_wc){0}) > 0) {
    }
    post_recv(b, 0, 16);
    report("a receive posted on a QP in ERR", status(cqb), "work request flushed error");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);

    /* 5. RESET -> ERR. */
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    int rc = ibv_modify_qp(a, &err, IBV_QP_STATE);
    snprintf(text, sizeof text, "%s", rc ? strerror(rc) : "accepted");
    report("ibv_modify_qp RESET -> ERR", text, "accepted (IBA 10.3.1: any state to ERR)");
    ibv_destroy_qp(a);

    /* 6. pkey_index beyond the P_Key table. */
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    rc = to_init(a, port.pkey_tbl_len);
    snprintf(text, sizeof text, "%s (table has %d)", rc ? strerror(rc) : "accepted", port.pkey_tbl_len);
    report("RESET -> INIT with pkey_index = pkey_tbl_len", text, "refused");
    ibv_destroy_qp(a);

    /* 7. Queue depth: how many WRs a queue granted max_*_wr = 8 accepts. */
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    b = qp_new(cqb, IBV_QPT_RC, 8, 0, 0);
    struct ibv_qp_attr qa;
    struct ibv_qp_init_attr qi;
    ibv_query_qp(a, &qa, IBV_QP_CAP, &qi);
    int recvs = 0;
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *rbad;
    to_init(a, 0);
    while (recvs < 100 && ibv_post_recv(a, &rwr, &rbad) == 0)
        recvs++;
    snprintf(text, sizeof text, "granted %u, accepted %d", qi.cap.max_recv_wr, recvs);
    report("receive queue depth", text, "ENOMEM after max_recv_wr");
    connect_to(b, a->qp_num);
    ibv_destroy_qp(a);
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    ibv_query_qp(a, &qa, IBV_QP_CAP, &qi);
    connect_to(a, b->qp_num);
    int sends = 0;
    while (sends < 100 && post_send(a, IBV_WR_RDMA_WRITE, 0, 8, mr->lkey, 0) == 0)
        sends++;
    snprintf(text, sizeof text, "granted %u, accepted %d", qi.cap.max_send_wr, sends);
    report("send queue depth (completions not polled)", text, "ENOMEM after max_send_wr");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);

    /* 8. An atomic on a remote address that is not 8-byte aligned. */
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    b = qp_new(cqb, IBV_QPT_RC, 8, 0, 0);
    connect_to(a, b->qp_num);
    connect_to(b, a->qp_num);
    struct ibv_sge asge = {.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey};
    struct ibv_send_wr awr, *abad;
    memset(&awr, 0, sizeof awr);
    awr.sg_list = &asge;
    awr.num_sge = 1;
    awr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    awr.send_flags = IBV_SEND_SIGNALED;
    awr.wr.atomic.remote_addr = (uintptr_t)buf + 8196;
    awr.wr.atomic.compare_add = 1;
    awr.wr.atomic.rkey = mr->rkey;
    rc = ibv_post_send(a, &awr, &abad);
    snprintf(text, sizeof text, "ibv_post_send=%s", rc ? strerror(rc) : "0");
    report("FETCH_AND_ADD at a misaligned remote address", text, "fails (at post or in completion)");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);

    /* 9. A UD SEND one byte longer than the port's active MTU. */
    a = qp_new(cqa, IBV_QPT_UD, 8, 0, 0);
    b = qp_new(cqb, IBV_QPT_UD, 8, 0, 0);
    connect_to(a, 0);
    connect_to(b, 0);
    struct ibv_ah_attr ah_attr;
    memset(&ah_attr, 0, sizeof ah_attr);
    ah_attr.is_global = 1;
    ah_attr.grh.dgid = gid;
    ah_attr.grh.sgid_index = gid_index;
    ah_attr.grh.hop_limit = 64;
    ah_attr.port_num = 1;
    struct ibv_ah *ah = ibv_create_ah(pd, &ah_attr);
    int mtu = 128 << port.active_mtu;
    struct ibv_sge rsge = {.addr = (uintptr_t)buf + 16384, .length = mtu + 64, .lkey = mr->lkey};
    struct ibv_recv_wr urwr = {.wr_id = 1, .sg_list = &rsge, .num_sge = 1};
    ibv_post_recv(b, &urwr, &rbad);
    struct ibv_sge ssge = {.addr = (uintptr_t)buf, .length = mtu + 1, .lkey = mr->lkey};
    struct ibv_send_wr uwr, *ubad;
    memset(&uwr, 0, sizeof uwr);
    uwr.sg_list = &ssge;
    uwr.num_sge = 1;
    uwr.opcode = IBV_WR_SEND;
    uwr.send_flags = IBV_SEND_SIGNALED;
    uwr.wr.ud.ah = ah;
    uwr.wr.ud.remote_qpn = b->qp_num;
    uwr.wr.ud.remote_qkey = 0x11111111;
    rc = ibv_post_send(a, &uwr, &ubad);
    snprintf(text, sizeof text, "post=%d, %s", rc, rc ? "-" : status(cqa));
    report("UD SEND of MTU + 1 bytes, sender", text, "refused or an error completion");
    struct ibv_wc wc;
    if (poll1(cqb, &wc) == 0)
        snprintf(text, sizeof text, "%s, %u bytes", ibv_wc_status_str(wc.status), wc.byte_len);
    else
        snprintf(text, sizeof text, "nothing arrived");
    report("UD SEND of MTU + 1 bytes, receiver", text, "never arrives");
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);

    /* 10. SEND_WITH_INV of a type 2 window: the receive's wc_flags. */
    struct ibv_mr *bmr = ibv_reg_mr(pd, buf + 32768, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE
                                    | IBV_ACCESS_MW_BIND);
    a = qp_new(cqa, IBV_QPT_RC, 8, IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV, 0);
    b = qp_new(cqb, IBV_QPT_RC, 8, IBV_QP_EX_WITH_BIND_MW, 0);
    connect_to(a, b->qp_num);
    connect_to(b, a->qp_num);
    struct ibv_mw *mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
    struct ibv_qp_ex *bx = ibv_qp_to_qp_ex(b);
    struct ibv_mw_bind_info info = {.mr = bmr, .addr = (uintptr_t)buf + 32768, .length = 4096,
                                    .mw_access_flags = IBV_ACCESS_REMOTE_WRITE};
    uint32_t mw_rkey = ibv_inc_rkey(mw2 ? mw2->rkey : 0);
    if (mw2 && bmr) {
        ibv_wr_start(bx);
        bx->wr_id = 9;
        bx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_bind_mw(bx, mw2, mw_rkey, &info);
        rc = ibv_wr_complete(bx);
        snprintf(text, sizeof text, "complete=%d, %s, mw->rkey %s", rc, rc ? "-" : status(cqb),
                 mw2->rkey == mw_rkey ? "updated" : "not updated");
        report("ibv_wr_bind_mw of a type 2 window", text, "success; the window takes the new rkey");
        /* librxe takes the window's current key from mw->rkey at the next bind, and does not update it
         * after a type 2 bind: the application (or verbs4j) has to. */
        mw2->rkey = mw_rkey;
        post_recv(b, 0, 64);
        struct ibv_qp_ex *ax = ibv_qp_to_qp_ex(a);
        ibv_wr_start(ax);
        ax->wr_id = 10;
        ax->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_send_inv(ax, mw_rkey);
        ibv_wr_set_sge(ax, mr->lkey, (uintptr_t)buf, 8);
        rc = ibv_wr_complete(ax);
        snprintf(text, sizeof text, "complete=%d, %s", rc, rc ? "-" : status(cqa));
        report("SEND_WITH_INV of the window's rkey, sender", text, "success");
        if (poll1(cqb, &wc) == 0)
            snprintf(text, sizeof text, "%s, wc_flags 0x%x, rkey 0x%x", ibv_wc_status_str(wc.status),
                     wc.wc_flags, wc.invalidated_rkey);
        else
            snprintf(text, sizeof text, "no completion");
        printf("%-58s rxe: %-28s TCK expects: wc_flags has IBV_WC_WITH_INV (0x%x), rkey 0x%x\n",
               "SEND_WITH_INV, receive completion", text, IBV_WC_WITH_INV, mw_rkey);
        /* 11. A type 2 bind whose rkey changes the index part, not just the 8-bit key. */
        ibv_wr_start(bx);
        bx->wr_id = 11;
        bx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_bind_mw(bx, mw2, ibv_inc_rkey(mw_rkey) ^ 0x100, &info);
        rc = ibv_wr_complete(bx);
        snprintf(text, sizeof text, "complete=%d, %s", rc, rc ? "-" : status(cqb));
        report("type 2 bind with the rkey's index bits changed", text, "refused or an error completion");
    } else {
        report("type 2 window", "could not allocate or register", "-");
    }
    ibv_destroy_qp(a);
    ibv_destroy_qp(b);

    /* 12. A write through a type 1 window, below the window's start but inside its region. */
    a = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    b = qp_new(cqb, IBV_QPT_RC, 8, 0, 0);
    connect_to(a, b->qp_num);
    connect_to(b, a->qp_num);
    struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
    if (mw1 && bmr) {
        struct ibv_mw_bind bind = {.wr_id = 12, .send_flags = IBV_SEND_SIGNALED,
                                   .bind_info = {.mr = bmr, .addr = (uintptr_t)buf + 32768 + 1024, .length = 1024,
                                                 .mw_access_flags = IBV_ACCESS_REMOTE_WRITE}};
        rc = ibv_bind_mw(b, mw1, &bind);
        snprintf(text, sizeof text, "bind=%d, %s", rc, rc ? "-" : status(cqb));
        report("ibv_bind_mw type 1 over [1024, 2048) of a region", text, "success");
        struct ibv_sge wsge = {.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey};
        struct ibv_send_wr wwr, *wbad;
        memset(&wwr, 0, sizeof wwr);
        wwr.sg_list = &wsge;
        wwr.num_sge = 1;
        wwr.opcode = IBV_WR_RDMA_WRITE;
        wwr.send_flags = IBV_SEND_SIGNALED;
        wwr.wr.rdma.remote_addr = (uintptr_t)buf + 32768 + 512;
        wwr.wr.rdma.rkey = mw1->rkey;
        rc = ibv_post_send(a, &wwr, &wbad);
        snprintf(text, sizeof text, "post=%d, %s", rc, rc ? "-" : status(cqa));
        report("RDMA WRITE through the window, 512 bytes below it", text, "remote access error");
    } else {
        report("type 1 window", "could not allocate", "-");
    }

    /* 13. A write through a type 2 window, below the window's start but inside its region. The window is
     * deallocated before its QP is destroyed: the other order makes ibv_destroy_qp take about 50 s on rxe. */
    struct ibv_qp *a2 = qp_new(cqa, IBV_QPT_RC, 8, 0, 0);
    struct ibv_qp *b2 = qp_new(cqb, IBV_QPT_RC, 8, IBV_QP_EX_WITH_BIND_MW, 0);
    connect_to(a2, b2->qp_num);
    connect_to(b2, a2->qp_num);
    struct ibv_mw *mw3 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
    if (mw3 && bmr) {
        struct ibv_qp_ex *b2x = ibv_qp_to_qp_ex(b2);
        struct ibv_mw_bind_info info3 = {.mr = bmr, .addr = (uintptr_t)buf + 32768 + 1024, .length = 1024,
                                         .mw_access_flags = IBV_ACCESS_REMOTE_WRITE};
        uint32_t rkey3 = ibv_inc_rkey(mw3->rkey);
        ibv_wr_start(b2x);
        b2x->wr_id = 13;
        b2x->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_bind_mw(b2x, mw3, rkey3, &info3);
        rc = ibv_wr_complete(b2x);
        snprintf(text, sizeof text, "complete=%d, %s", rc, rc ? "-" : status(cqb));
        report("ibv_wr_bind_mw type 2 over [1024, 2048) of a region", text, "success");
        mw3->rkey = rkey3;
        struct ibv_sge wsge = {.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey};
        struct ibv_send_wr wwr, *wbad;
        memset(&wwr, 0, sizeof wwr);
        wwr.sg_list = &wsge;
        wwr.num_sge = 1;
        wwr.opcode = IBV_WR_RDMA_WRITE;
        wwr.send_flags = IBV_SEND_SIGNALED;
        wwr.wr.rdma.remote_addr = (uintptr_t)buf + 32768 + 512;
        wwr.wr.rdma.rkey = rkey3;
        rc = ibv_post_send(a2, &wwr, &wbad);
        snprintf(text, sizeof text, "post=%d, %s", rc, rc ? "-" : status(cqa));
        report("RDMA WRITE through the type 2 window, 512 bytes below it", text, "remote access error");
        ibv_dealloc_mw(mw3);
    } else {
        report("type 2 window", "could not allocate", "-");
    }
    ibv_destroy_qp(a2);
    ibv_destroy_qp(b2);

    /* 14. (D-013) A UD send to a multicast GID, QPN 0xFFFFFF, with a QP of the same device attached to the group. */
    struct ibv_qp *ua = qp_new(cqa, IBV_QPT_UD, 8, 0, 0), *ub = qp_new(cqb, IBV_QPT_UD, 8, 0, 0);
    connect_to(ua, 0);
    connect_to(ub, 0);
    union ibv_gid group;
    memset(&group, 0, sizeof group);
    group.raw[10] = 0xff; /* ::ffff:239.1.2.3 */
    group.raw[11] = 0xff;
    group.raw[12] = 239;
    group.raw[13] = 1;
    group.raw[14] = 2;
    group.raw[15] = 3;
    rc = ibv_attach_mcast(ub, &group, 0);
    snprintf(text, sizeof text, "attach=%d", rc);
    report("ibv_attach_mcast of a UD QP to ::ffff:239.1.2.3", text, "0");
    struct ibv_ah_attr maa = {.is_global = 1, .port_num = 1,
                              .grh = {.dgid = group, .sgid_index = gid_index, .hop_limit = 64}};
    struct ibv_ah *mah = ibv_create_ah(pd, &maa);
    if (!rc && mah) {
        post_recv(ub, 0, 40 + 64);
        struct ibv_sge msge = {.addr = (uintptr_t)buf + 4096, .length = 64, .lkey = mr->lkey};
        struct ibv_send_wr mwr, *mbad;
        memset(&mwr, 0, sizeof mwr);
        mwr.wr_id = 14;
        mwr.sg_list = &msge;
        mwr.num_sge = 1;
        mwr.opcode = IBV_WR_SEND;
        mwr.send_flags = IBV_SEND_SIGNALED;
        mwr.wr.ud.ah = mah;
        mwr.wr.ud.remote_qpn = 0xffffff;
        mwr.wr.ud.remote_qkey = 0x11111111;
        rc = ibv_post_send(ua, &mwr, &mbad);
        snprintf(text, sizeof text, "post=%d, %s", rc, rc ? "-" : status(cqa));
        report("UD SEND to the group, sender", text, "success");
        report("UD SEND to the group, attached QP of the same device", status(cqb), "success");
        ibv_detach_mcast(ub, &group, 0);
        ibv_destroy_ah(mah);
    } else {
        report("multicast AH", "could not attach or create", "-");
    }
    ibv_destroy_qp(ua);
    ibv_destroy_qp(ub);
    return 0;
}
