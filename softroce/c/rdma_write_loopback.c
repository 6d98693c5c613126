/*
 * rdma_write_loopback: the smallest end-to-end proof that a verbs device
 * works, written for the soft-RoCE harness (softroce/run, step "cverbs").
 *
 * It opens one device, creates a PD, a CQ and two RC QPs on port 1, connects
 * the QPs to each other through the port's own GID, posts one signaled
 * RDMA WRITE from QP a into a buffer registered for remote write, waits for
 * the completion and compares the bytes.
 *
 * usage: rdma_write_loopback [-d DEVICE] [-g GID_INDEX] [-s BYTES]
 *   DEVICE    default $VERBS4J_RDMA_DEVICE, else rxe0
 *   GID_INDEX default $VERBS4J_RDMA_GID_INDEX, else the first IPv4-mapped
 *             GID of port 1, else the first non-zero one
 *   BYTES     default 4096 (several packets at rxe's 1024-byte MTU)
 *
 * Exit status: 0 when the bytes arrived, 1 on any failure (stderr names the
 * verb that failed and its errno), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PORT 1
#define POLL_TIMEOUT_MS 20000 /* rxe under TCG is slow; keep it generous */

static int fail(const char *what, int err)
{
    fprintf(stderr, "FAIL %s: %s (errno %d)\n", what, strerror(err), err);
    return 1;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int gid_is_zero(const union ibv_gid *gid)
{
    static const uint8_t zero[16];
    return memcmp(gid->raw, zero, sizeof zero) == 0;
}

static int gid_is_ipv4_mapped(const union ibv_gid *gid)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(gid->raw, prefix, sizeof prefix) == 0;
}

/* Picks the GID index when none was given: IPv4-mapped first, as rxe's
 * RoCE v2 GID for an IPv4 address is the stable one. */
static int pick_gid(struct ibv_context *ctx, int table_len, int *index)
{
    union ibv_gid gid;
    int first_nonzero = -1;
    for (int i = 0; i < table_len; i++) {
        if (ibv_query_gid(ctx, PORT, i, &gid))
            continue;
        if (gid_is_zero(&gid))
            continue;
        if (gid_is_ipv4_mapped(&gid)) {
            *index = i;
            return 0;
        }
        if (first_nonzero < 0)
            first_nonzero = i;
    }
    if (first_nonzero < 0)
        return -1;
    *index = first_nonzero;
    return 0;
}

static int to_init(struct ibv_qp *qp)
{
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = PORT,
        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
    };
    return ibv_modify_qp(qp, &attr,
                         IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* RoCE has no LIDs: the address is the GID, so the AH must carry a GRH. */
static int to_rtr(struct ibv_qp *qp, uint32_t remote_qpn, uint32_t remote_psn,
                  enum ibv_mtu mtu, const union ibv_gid *dgid, int sgid_index)
{
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = mtu,
        .dest_qp_num = remote_qpn,
        .rq_psn = remote_psn,
        .max_dest_rd_atomic = 1,
        .min_rnr_timer = 12,
        .ah_attr = {
            .is_global = 1,
            .grh = {.dgid = *dgid, .sgid_index = (uint8_t)sgid_index, .hop_limit = 64},
            .dlid = 0,
            .sl = 0,
            .src_path_bits = 0,
            .port_num = PORT,
        },
    };
    return ibv_modify_qp(qp, &attr,
                         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                             IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int to_rts(struct ibv_qp *qp, uint32_t psn)
{
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_RTS,
        .timeout = 14,
        .retry_cnt = 7,
        .rnr_retry = 7,
        .sq_psn = psn,
        .max_rd_atomic = 1,
    };
    return ibv_modify_qp(qp, &attr,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void usage(void)
{
    fprintf(stderr, "usage: rdma_write_loopback [-d DEVICE] [-g GID_INDEX] [-s BYTES]\n");
}

int main(int argc, char **argv)
{
    const char *dev_name = getenv("VERBS4J_RDMA_DEVICE");
    const char *gid_env = getenv("VERBS4J_RDMA_GID_INDEX");
    int gid_index = (gid_env && *gid_env) ? atoi(gid_env) : -1;
    size_t size = 4096;
    int opt;
    while ((opt = getopt(argc, argv, "d:g:s:h")) != -1) {
        switch (opt) {
        case 'd': dev_name = optarg; break;
        case 'g': gid_index = atoi(optarg); break;
        case 's': size = strtoul(optarg, NULL, 0); break;
        default: usage(); return 2;
        }
    }
    if (!dev_name || !*dev_name)
        dev_name = "rxe0";
    if (size == 0 || size > (1u << 30)) {
        usage();
        return 2;
    }

    int num = 0;
    struct ibv_device **list = ibv_get_device_list(&num);
    if (!list)
        return fail("ibv_get_device_list", errno);
    struct ibv_device *dev = NULL;
    for (int i = 0; i < num; i++)
        if (strcmp(ibv_get_device_name(list[i]), dev_name) == 0)
            dev = list[i];
    if (!dev) {
        fprintf(stderr, "FAIL device %s not found among %d device(s)\n", dev_name, num);
        return 1;
    }
    struct ibv_context *ctx = ibv_open_device(dev);
    if (!ctx)
        return fail("ibv_open_device", errno);

    struct ibv_port_attr port;
    int rc = ibv_query_port(ctx, PORT, &port);
    if (rc)
        return fail("ibv_query_port", rc);
    if (port.state != IBV_PORT_ACTIVE) {
        fprintf(stderr, "FAIL port %d is %s, not ACTIVE\n", PORT, ibv_port_state_str(port.state));
        return 1;
    }
    if (gid_index < 0 && pick_gid(ctx, port.gid_tbl_len, &gid_index)) {
        fprintf(stderr, "FAIL no usable GID on port %d\n", PORT);
        return 1;
    }
    union ibv_gid gid;
    rc = ibv_query_gid(ctx, PORT, gid_index, &gid);
    if (rc)
        return fail("ibv_query_gid", errno ? errno : EINVAL);
    char gid_text[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, gid.raw, gid_text, sizeof gid_text);
    printf("device %s port %d: %s, link layer %s, active mtu %d, gid[%d] %s\n", dev_name, PORT,
           ibv_port_state_str(port.state),
           port.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand",
           128 << port.active_mtu, gid_index, gid_text);

    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    if (!pd)
        return fail("ibv_alloc_pd", errno);
    struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    if (!cq)
        return fail("ibv_create_cq", errno);

    struct ibv_qp_init_attr init = {
        .send_cq = cq,
        .recv_cq = cq,
        .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1},
        .qp_type = IBV_QPT_RC,
        .sq_sig_all = 0,
    };
    struct ibv_qp *a = ibv_create_qp(pd, &init);
    if (!a)
        return fail("ibv_create_qp (a)", errno);
    struct ibv_qp *b = ibv_create_qp(pd, &init);
    if (!b)
        return fail("ibv_create_qp (b)", errno);

    uint8_t *src = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    uint8_t *dst = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    if (!src || !dst)
        return fail("aligned_alloc", ENOMEM);
    for (size_t i = 0; i < size; i++)
        src[i] = (uint8_t)(i * 7 + 3);
    memset(dst, 0, size);

    struct ibv_mr *src_mr = ibv_reg_mr(pd, src, size, IBV_ACCESS_LOCAL_WRITE);
    if (!src_mr)
        return fail("ibv_reg_mr (source)", errno);
    struct ibv_mr *dst_mr =
        ibv_reg_mr(pd, dst, size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!dst_mr)
        return fail("ibv_reg_mr (target)", errno);

    const uint32_t psn_a = 0x1000, psn_b = 0x2000;
    if ((rc = to_init(a)) || (rc = to_init(b)))
        return fail("ibv_modify_qp to INIT", rc);
    if ((rc = to_rtr(a, b->qp_num, psn_b, port.active_mtu, &gid, gid_index)) ||
        (rc = to_rtr(b, a->qp_num, psn_a, port.active_mtu, &gid, gid_index)))
        return fail("ibv_modify_qp to RTR", rc);
    if ((rc = to_rts(a, psn_a)) || (rc = to_rts(b, psn_b)))
        return fail("ibv_modify_qp to RTS", rc);
    printf("qp a %u <-> qp b %u connected (RC)\n", a->qp_num, b->qp_num);

    struct ibv_sge sge = {
        .addr = (uintptr_t)src,
        .length = (uint32_t)size,
        .lkey = src_mr->lkey,
    };
    struct ibv_send_wr wr = {
        .wr_id = 0x5752495445ull, /* "WRITE" */
        .sg_list = &sge,
        .num_sge = 1,
        .opcode = IBV_WR_RDMA_WRITE,
        .send_flags = IBV_SEND_SIGNALED,
        .wr.rdma = {.remote_addr = (uintptr_t)dst, .rkey = dst_mr->rkey},
    };
    struct ibv_send_wr *bad = NULL;
    int64_t t0 = now_ms();
    if ((rc = ibv_post_send(a, &wr, &bad)))
        return fail("ibv_post_send", rc);

    struct ibv_wc wc;
    int n;
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};
    while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
        if (now_ms() - t0 > POLL_TIMEOUT_MS) {
            fprintf(stderr, "FAIL no completion within %d ms\n", POLL_TIMEOUT_MS);
            return 1;
        }
        nanosleep(&pause, NULL);
    }
    int64_t elapsed = now_ms() - t0;
    if (n < 0)
        return fail("ibv_poll_cq", EIO);
    if (wc.status != IBV_WC_SUCCESS) {
        fprintf(stderr, "FAIL completion status %s (%d), vendor_err 0x%x\n",
                ibv_wc_status_str(wc.status), wc.status, wc.vendor_err);
        return 1;
    }
    if (wc.wr_id != wr.wr_id || wc.opcode != IBV_WC_RDMA_WRITE || wc.qp_num != a->qp_num) {
        fprintf(stderr, "FAIL unexpected completion: wr_id 0x%llx opcode %d qp %u\n",
                (unsigned long long)wc.wr_id, wc.opcode, wc.qp_num);
        return 1;
    }
    for (size_t i = 0; i < size; i++) {
        if (dst[i] != src[i]) {
            fprintf(stderr, "FAIL byte %zu is 0x%02x, expected 0x%02x\n", i, dst[i], src[i]);
            return 1;
        }
    }
    printf("RDMA WRITE of %zu bytes completed in %lld ms; bytes match\n", size,
           (long long)elapsed);

    /* Teardown is checked too: a destroy that fails is a verbs bug worth seeing. */
    if ((rc = ibv_destroy_qp(a)) || (rc = ibv_destroy_qp(b)))
        return fail("ibv_destroy_qp", rc);
    if ((rc = ibv_dereg_mr(src_mr)) || (rc = ibv_dereg_mr(dst_mr)))
        return fail("ibv_dereg_mr", rc);
    if ((rc = ibv_destroy_cq(cq)))
        return fail("ibv_destroy_cq", rc);
    if ((rc = ibv_dealloc_pd(pd)))
        return fail("ibv_dealloc_pd", rc);
    if ((rc = ibv_close_device(ctx)))
        return fail("ibv_close_device", errno);
    ibv_free_device_list(list);
    free(src);
    free(dst);
    printf("PASS rdma_write_loopback\n");
    return 0;
}
