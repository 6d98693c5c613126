/*
 * null_ibverbs: a libibverbs with no kernel and no hardware behind it, for measuring the cost of the
 * bindings themselves (see benchmarks/README.md, "The null libibverbs").
 *
 * Over 600 lines: one libibverbs in one translation unit, as a provider library is.
 *
 * Built by benchmarks/c/build-nullverbs into benchmarks/target/nullverbs/libibverbs.so.1.14.44.0 with the
 * soname libibverbs.so.1 and the IBVERBS_1.x symbol versions of null_ibverbs.map, so that anything that
 * loads "libibverbs.so.1" (verbs4j's ffm and jnr providers, the C baseline post_rate, ibv_devinfo) finds it
 * through LD_LIBRARY_PATH. The file name carries rdma-core 44, which the providers read.
 *
 * It lists one device, null0, with one active RoCE-like port. Its objects are the structs of the
 * installed <infiniband/verbs.h> (struct verbs_context, ibv_qp_ex, ibv_cq_ex ...) with this library's
 * state after them, so their layout is the header's by construction; the _Static_asserts below pin the
 * offsets the providers hard-code, and the build fails if the header and they ever disagree.
 *
 * What works, with the least work that keeps the semantics:
 *  - open/query (device, device_ex, port, GID, pkey), PD, MR (any address, keys from a counter), AH;
 *  - CQs: ibv_create_cq and the extended create_cq_ex (start_poll/next_poll/end_poll and the read_*
 *    ops), both polled with ops.poll_cq too; a CQ is a ring of completions;
 *  - RC/UC/UD QPs from ibv_create_qp and create_qp_ex (send_ops_flags), ibv_qp_to_qp_ex;
 *    modify_qp records the state (no transition rules: a loopback pair "connects" at once);
 *  - post_send, and wr_start / every wr_* builder and setter / wr_complete / wr_abort: each WR is
 *    recorded in the QP's send ring (wr_id, opcode, flags, byte count), and wr_complete or post_send
 *    adds a successful completion to the send CQ for each signaled WR (or every WR with sq_sig_all);
 *    polling a completion retires its WR and every earlier one, so the send queue depth is enforced
 *    (ENOMEM) as a device does;
 *  - post_recv records receive WRs, which never complete (nothing is ever received);
 *  - a completion channel can be created and given to a CQ, but it never delivers an event (notification
 *    and ibv_get_cq_event fail with ENOSYS).
 * Everything else the real library exports is present and fails with ENOSYS (or EOPNOTSUPP where the
 * verbs return it), and the verbs_context ops not listed are NULL, which the header's inline verbs
 * report as EOPNOTSUPP. Not thread safe: one thread per QP and CQ, as the benchmarks use them.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------------ layout checks */
/*
 * The structs of this library are the header's own, so it always follows the installed verbs.h. What can
 * drift is the header against the layout the providers read: build-nullverbs generates layout-asserts.h
 * from provider-native-common's one layout description (StructCatalog: every struct's size and every
 * member's offset, the rdma-core 44 x86-64 layout that both provider-ffm and provider-jnr use), one
 * _Static_assert each, so the build fails when verbs.h and the providers disagree. The asserts below are the ones this file relies on.
 */
#include "layout-asserts.h"

_Static_assert(sizeof(void *) == 8, "64-bit only");
_Static_assert(offsetof(struct verbs_context, sz) + sizeof(size_t) == offsetof(struct verbs_context, context),
	       "verbs_context.sz must be immediately before context");
_Static_assert(offsetof(struct verbs_context, context) + sizeof(struct ibv_context) == sizeof(struct verbs_context),
	       "verbs_context.context must be last");
_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "ibv_qp_ex starts with its ibv_qp");
_Static_assert(offsetof(struct ibv_cq_ex, context) == offsetof(struct ibv_cq, context) &&
		       offsetof(struct ibv_cq_ex, cqe) == offsetof(struct ibv_cq, cqe) &&
		       offsetof(struct ibv_cq_ex, mutex) == offsetof(struct ibv_cq, mutex) &&
		       offsetof(struct ibv_cq_ex, async_events_completed) ==
			       offsetof(struct ibv_cq, async_events_completed),
	       "ibv_cq_ex starts like ibv_cq (ibv_cq_ex_to_cq is a cast)");
_Static_assert(offsetof(struct ibv_qp_init_attr_ex, cap) == offsetof(struct ibv_qp_init_attr, cap) &&
		       offsetof(struct ibv_qp_init_attr_ex, sq_sig_all) == offsetof(struct ibv_qp_init_attr, sq_sig_all),
	       "ibv_qp_init_attr is the prefix of ibv_qp_init_attr_ex");

/* ------------------------------------------------------------------ objects */

#define NULL_DEVICE_NAME "null0"
#define NULL_GUID 0x0002c9fffe4e5500ull /* host order */
#define MAX_QP_WR 32768
#define MAX_CQE 65536
#define MAX_SGE 32
#define MAX_INLINE 256
#define NUM_GIDS 2
#define QP_EX_OPS                                                                                            \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |              \
	 IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ)
#define WC_FLAGS_SUPPORTED                                                                                   \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |       \
	 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS)

struct null_context {
	struct verbs_context vctx; /* its ibv_context is what callers hold */
	uint32_t next_qpn;
	uint32_t next_key;
};

struct null_cqe {
	uint64_t wr_id;
	struct null_qp *qp; /* NULL once the QP is gone */
	uint64_t sq_index;  /* the WR's index in its QP's send ring */
	uint32_t qp_num;
	uint32_t byte_len;
	uint32_t opcode; /* enum ibv_wc_opcode */
};

struct null_cq {
	struct ibv_cq_ex cq; /* first: an ibv_cq and an ibv_cq_ex at once */
	uint32_t mask;       /* ring size - 1 */
	uint64_t head;       /* next completion to poll */
	uint64_t tail;       /* next free slot */
	int overrun;
	int current; /* an extended poll holds the completion at head */
	struct null_cqe *ring;
};

struct null_swr {
	uint64_t wr_id;
	uint32_t opcode; /* enum ibv_wr_opcode */
	uint32_t flags;
	uint32_t byte_len;
	uint32_t rkey;
	uint64_t remote_addr;
};

struct null_qp {
	struct ibv_qp_ex qpx; /* first: qpx.qp_base is the ibv_qp */
	struct ibv_qp_cap cap;
	int sq_sig_all;
	int has_qpx;
	uint64_t send_ops;
	uint32_t sq_mask;
	uint64_t posted;  /* WRs handed to the "device" */
	uint64_t retired; /* WRs whose completion (or a later one) was polled */
	uint64_t pending; /* WRs built in the open WR session */
	int session_error;
	uint64_t recv_posted;
	struct ibv_qp_attr attr; /* what modify_qp recorded */
	struct null_swr *sq;
};

static struct ibv_device null_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = NULL_DEVICE_NAME,
	.dev_name = "uverbs0",
	.dev_path = "/sys/class/infiniband_verbs/uverbs0",
	.ibdev_path = "/sys/class/infiniband/" NULL_DEVICE_NAME,
};

static inline struct null_context *nctx(struct ibv_context *c)
{
	return (struct null_context *)((char *)c - offsetof(struct verbs_context, context));
}

static inline struct null_qp *nqp(struct ibv_qp *qp)
{
	return (struct null_qp *)qp;
}

static inline struct null_qp *nqpx(struct ibv_qp_ex *qpx)
{
	return (struct null_qp *)qpx;
}

static inline struct null_cq *ncq(struct ibv_cq *cq)
{
	return (struct null_cq *)cq;
}

static inline struct null_cq *ncqx(struct ibv_cq_ex *cq)
{
	return (struct null_cq *)cq;
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static void *fail_ptr(int e)
{
	errno = e;
	return NULL;
}

/* ------------------------------------------------------------------ completions */

static inline void cq_push(struct null_cq *cq, struct null_qp *qp, const struct null_swr *w, uint64_t index)
{
	struct null_cqe *e;

	if (cq->tail - cq->head > cq->mask) {
		cq->overrun = 1;
		return;
	}
	e = &cq->ring[cq->tail & cq->mask];
	e->wr_id = w->wr_id;
	e->qp = qp;
	e->sq_index = index;
	e->qp_num = qp->qpx.qp_base.qp_num;
	e->byte_len = w->byte_len;
	switch (w->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		e->opcode = IBV_WC_RDMA_WRITE;
		break;
	case IBV_WR_RDMA_READ:
		e->opcode = IBV_WC_RDMA_READ;
		break;
	default:
		e->opcode = IBV_WC_SEND;
		break;
	}
	cq->tail++;
}

/* Polling a completion retires its WR and every earlier one of that QP (RC ordering). */
static inline void cq_retire(struct null_cqe *e)
{
	if (e->qp && e->sq_index + 1 > e->qp->retired)
		e->qp->retired = e->sq_index + 1;
}

/* The WRs [posted, posted + n) of qp's send ring are executed: signaled ones complete. */
static inline void qp_execute(struct null_qp *qp, uint64_t n)
{
	struct null_cq *cq = ncq(qp->qpx.qp_base.send_cq);

	for (uint64_t i = qp->posted; i < qp->posted + n; i++) {
		struct null_swr *w = &qp->sq[i & qp->sq_mask];

		if (qp->sq_sig_all || (w->flags & IBV_SEND_SIGNALED))
			cq_push(cq, qp, w, i);
	}
	qp->posted += n;
}

static int null_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct null_cq *cq = ncq(ibcq);
	int n = 0;

	if (cq->overrun)
		return -EOVERFLOW;
	while (n < num_entries && cq->head != cq->tail) {
		struct null_cqe *e = &cq->ring[cq->head & cq->mask];

		cq_retire(e);
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = e->wr_id;
		wc[n].status = IBV_WC_SUCCESS;
		wc[n].opcode = e->opcode;
		wc[n].byte_len = e->byte_len;
		wc[n].qp_num = e->qp_num;
		cq->head++;
		n++;
	}
	return n;
}

static inline void cq_load(struct null_cq *cq)
{
	struct null_cqe *e = &cq->ring[cq->head & cq->mask];

	cq->cq.wr_id = e->wr_id;
	cq->cq.status = IBV_WC_SUCCESS;
	cq->current = 1;
}

static inline void cq_consume(struct null_cq *cq)
{
	if (cq->current) {
		cq_retire(&cq->ring[cq->head & cq->mask]);
		cq->head++;
		cq->current = 0;
	}
}

static int null_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct null_cq *cq = ncqx(cqx);

	(void)attr;
	if (cq->overrun)
		return EOVERFLOW;
	if (cq->head == cq->tail)
		return ENOENT;
	cq_load(cq);
	return 0;
}

static int null_next_poll(struct ibv_cq_ex *cqx)
{
	struct null_cq *cq = ncqx(cqx);

	cq_consume(cq);
	if (cq->head == cq->tail)
		return ENOENT;
	cq_load(cq);
	return 0;
}

static void null_end_poll(struct ibv_cq_ex *cqx)
{
	cq_consume(ncqx(cqx));
}

static inline struct null_cqe *cq_cur(struct ibv_cq_ex *cqx)
{
	struct null_cq *cq = ncqx(cqx);

	return &cq->ring[cq->head & cq->mask];
}

static enum ibv_wc_opcode null_read_opcode(struct ibv_cq_ex *cq)
{
	return (enum ibv_wc_opcode)cq_cur(cq)->opcode;
}

static uint32_t null_read_zero32(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static uint32_t null_read_byte_len(struct ibv_cq_ex *cq)
{
	return cq_cur(cq)->byte_len;
}

static __be32 null_read_imm_data(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static uint32_t null_read_qp_num(struct ibv_cq_ex *cq)
{
	return cq_cur(cq)->qp_num;
}

static unsigned int null_read_wc_flags(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static uint8_t null_read_zero8(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static int null_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return ENOSYS;
}

static struct null_cq *cq_new(struct ibv_context *context, int cqe, void *cq_context,
			      struct ibv_comp_channel *channel, int comp_vector)
{
	struct null_cq *cq;

	if (cqe < 1 || cqe > MAX_CQE || comp_vector != 0)
		return fail_ptr(EINVAL);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return fail_ptr(ENOMEM);
	cq->mask = pow2_at_least((uint32_t)cqe) - 1;
	cq->ring = calloc(cq->mask + 1, sizeof(*cq->ring));
	if (!cq->ring) {
		free(cq);
		return fail_ptr(ENOMEM);
	}
	cq->cq.context = context;
	cq->cq.cq_context = cq_context;
	cq->cq.channel = channel; /* never signaled: see ibv_create_comp_channel */
	if (channel)
		channel->refcnt++;
	cq->cq.cqe = (int)cq->mask + 1;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	cq->cq.start_poll = null_start_poll;
	cq->cq.next_poll = null_next_poll;
	cq->cq.end_poll = null_end_poll;
	cq->cq.read_opcode = null_read_opcode;
	cq->cq.read_vendor_err = null_read_zero32;
	cq->cq.read_byte_len = null_read_byte_len;
	cq->cq.read_imm_data = null_read_imm_data;
	cq->cq.read_qp_num = null_read_qp_num;
	cq->cq.read_src_qp = null_read_zero32;
	cq->cq.read_wc_flags = null_read_wc_flags;
	cq->cq.read_slid = null_read_zero32;
	cq->cq.read_sl = null_read_zero8;
	cq->cq.read_dlid_path_bits = null_read_zero8;
	return cq;
}

static struct ibv_cq_ex *null_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	struct null_cq *cq;

	if (attr->wc_flags & ~(uint64_t)WC_FLAGS_SUPPORTED)
		return fail_ptr(EOPNOTSUPP);
	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS)
		return fail_ptr(EOPNOTSUPP);
	cq = cq_new(context, (int)attr->cqe, attr->cq_context, attr->channel, (int)attr->comp_vector);
	return cq ? &cq->cq : NULL;
}

EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector)
{
	struct null_cq *cq = cq_new(context, cqe, cq_context, channel, comp_vector);

	return cq ? ibv_cq_ex_to_cq(&cq->cq) : NULL;
}

EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct null_cq *cq = ncq(ibcq);

	if (cq->cq.channel)
		cq->cq.channel->refcnt--;
	free(cq->ring);
	free(cq);
	return 0;
}

/* ------------------------------------------------------------------ the send queue */

/* A new WR of the open session: the builder's part. */
static inline struct null_swr *wr_new(struct null_qp *qp, uint32_t opcode)
{
	struct null_swr *w;

	if (qp->posted + qp->pending - qp->retired >= qp->cap.max_send_wr) {
		qp->session_error = ENOMEM;
		w = &qp->sq[(qp->posted + qp->pending) & qp->sq_mask]; /* scribble; complete() fails */
		return w;
	}
	w = &qp->sq[(qp->posted + qp->pending) & qp->sq_mask];
	w->wr_id = qp->qpx.wr_id;
	w->flags = qp->qpx.wr_flags;
	w->opcode = opcode;
	w->byte_len = 0;
	qp->pending++;
	return w;
}

/* The WR the last builder made, for the setters. */
static inline struct null_swr *wr_cur(struct null_qp *qp)
{
	return &qp->sq[(qp->posted + qp->pending - 1) & qp->sq_mask];
}

static inline void wr_check_op(struct null_qp *qp, uint64_t op)
{
	if (!(qp->send_ops & op))
		qp->session_error = EOPNOTSUPP;
}

static void null_wr_start(struct ibv_qp_ex *qpx)
{
	struct null_qp *qp = nqpx(qpx);

	qp->pending = 0;
	qp->session_error = 0;
}

static int null_wr_complete(struct ibv_qp_ex *qpx)
{
	struct null_qp *qp = nqpx(qpx);
	int err = qp->session_error;

	if (!err)
		qp_execute(qp, qp->pending);
	qp->pending = 0;
	qp->session_error = 0;
	return err;
}

static void null_wr_abort(struct ibv_qp_ex *qpx)
{
	struct null_qp *qp = nqpx(qpx);

	qp->pending = 0;
	qp->session_error = 0;
}

static void null_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	struct null_qp *qp = nqpx(qpx);
	struct null_swr *w = wr_new(qp, IBV_WR_RDMA_WRITE);

	w->rkey = rkey;
	w->remote_addr = remote_addr;
	wr_check_op(qp, IBV_QP_EX_WITH_RDMA_WRITE);
}

static void null_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, __be32 imm)
{
	struct null_qp *qp = nqpx(qpx);
	struct null_swr *w = wr_new(qp, IBV_WR_RDMA_WRITE_WITH_IMM);

	(void)imm;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	wr_check_op(qp, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
}

static void null_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	struct null_qp *qp = nqpx(qpx);
	struct null_swr *w = wr_new(qp, IBV_WR_RDMA_READ);

	w->rkey = rkey;
	w->remote_addr = remote_addr;
	wr_check_op(qp, IBV_QP_EX_WITH_RDMA_READ);
}

static void null_wr_send(struct ibv_qp_ex *qpx)
{
	struct null_qp *qp = nqpx(qpx);

	wr_new(qp, IBV_WR_SEND);
	wr_check_op(qp, IBV_QP_EX_WITH_SEND);
}

static void null_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct null_qp *qp = nqpx(qpx);

	(void)imm;
	wr_new(qp, IBV_WR_SEND_WITH_IMM);
	wr_check_op(qp, IBV_QP_EX_WITH_SEND_WITH_IMM);
}

static void null_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct null_qp *qp = nqpx(qpx);

	(void)rkey;
	wr_new(qp, IBV_WR_SEND_WITH_INV);
	wr_check_op(qp, IBV_QP_EX_WITH_SEND_WITH_INV);
}

static void null_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	struct null_qp *qp = nqpx(qpx);

	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	wr_new(qp, IBV_WR_TSO);
	wr_check_op(qp, IBV_QP_EX_WITH_TSO);
}

static void null_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	struct null_qp *qp = nqpx(qpx);
	struct null_swr *w = wr_new(qp, IBV_WR_ATOMIC_CMP_AND_SWP);

	(void)compare;
	(void)swap;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	w->byte_len = 8;
	wr_check_op(qp, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
}

static void null_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	struct null_qp *qp = nqpx(qpx);
	struct null_swr *w = wr_new(qp, IBV_WR_ATOMIC_FETCH_AND_ADD);

	(void)add;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	w->byte_len = 8;
	wr_check_op(qp, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
}

static void null_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, const void *value)
{
	struct null_qp *qp = nqpx(qpx);
	struct null_swr *w = wr_new(qp, IBV_WR_ATOMIC_WRITE);

	(void)value;
	w->rkey = rkey;
	w->remote_addr = remote_addr;
	w->byte_len = 8;
	wr_check_op(qp, IBV_QP_EX_WITH_ATOMIC_WRITE);
}

static void null_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
			    const struct ibv_mw_bind_info *info)
{
	struct null_qp *qp = nqpx(qpx);

	(void)mw;
	(void)rkey;
	(void)info;
	wr_new(qp, IBV_WR_BIND_MW);
	wr_check_op(qp, IBV_QP_EX_WITH_BIND_MW);
}

static void null_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct null_qp *qp = nqpx(qpx);

	(void)rkey;
	wr_new(qp, IBV_WR_LOCAL_INV);
	wr_check_op(qp, IBV_QP_EX_WITH_LOCAL_INV);
}

static void null_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct null_qp *qp = nqpx(qpx);

	(void)lkey;
	(void)addr;
	if (qp->pending)
		wr_cur(qp)->byte_len = length;
}

static void null_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge, const struct ibv_sge *sg_list)
{
	struct null_qp *qp = nqpx(qpx);
	uint32_t len = 0;

	if (num_sge > qp->cap.max_send_sge) {
		qp->session_error = EINVAL;
		return;
	}
	for (size_t i = 0; i < num_sge; i++)
		len += sg_list[i].length;
	if (qp->pending)
		wr_cur(qp)->byte_len = len;
}

static void null_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	struct null_qp *qp = nqpx(qpx);

	(void)addr;
	if (length > qp->cap.max_inline_data) {
		qp->session_error = EINVAL;
		return;
	}
	if (qp->pending)
		wr_cur(qp)->byte_len = (uint32_t)length;
}

static void null_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf, const struct ibv_data_buf *buf)
{
	struct null_qp *qp = nqpx(qpx);
	size_t len = 0;

	for (size_t i = 0; i < num_buf; i++)
		len += buf[i].length;
	null_wr_set_inline_data(qpx, NULL, len);
	(void)qp;
}

static void null_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)
{
	(void)qpx;
	(void)ah;
	(void)remote_qpn;
	(void)remote_qkey;
}

static void null_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	nqpx(qpx)->session_error = EOPNOTSUPP;
	(void)remote_srqn;
}

static int null_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct null_qp *qp = nqp(ibqp);
	uint64_t n = 0;
	int err = 0;

	if (qp->attr.qp_state < IBV_QPS_RTS) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next, n++) {
		struct null_swr *w;
		uint32_t len = 0;

		if (qp->posted + n - qp->retired >= qp->cap.max_send_wr) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge) {
			err = EINVAL;
			break;
		}
		w = &qp->sq[(qp->posted + n) & qp->sq_mask];
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		w->wr_id = wr->wr_id;
		w->opcode = wr->opcode;
		w->flags = wr->send_flags;
		w->byte_len = len;
		w->rkey = wr->wr.rdma.rkey;
		w->remote_addr = wr->wr.rdma.remote_addr;
	}
	if (err)
		*bad_wr = wr;
	qp_execute(qp, n);
	return err;
}

static int null_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct null_qp *qp = nqp(ibqp);

	if (ibqp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next) {
		if (qp->recv_posted >= qp->cap.max_recv_wr) {
			*bad_wr = wr;
			return ENOMEM;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_recv_sge) {
			*bad_wr = wr;
			return EINVAL;
		}
		qp->recv_posted++; /* nothing is ever received: receives stay posted */
	}
	return 0;
}

/* ------------------------------------------------------------------ QPs */

static struct ibv_qp *qp_new(struct ibv_context *context, struct ibv_qp_init_attr_ex *a, int ex)
{
	struct null_qp *qp;
	uint64_t ops = 0;

	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC && a->qp_type != IBV_QPT_UD)
		return fail_ptr(EOPNOTSUPP);
	if (!a->send_cq || !a->recv_cq || !a->pd)
		return fail_ptr(EINVAL);
	if (a->cap.max_send_wr > MAX_QP_WR || a->cap.max_recv_wr > MAX_QP_WR || a->cap.max_send_sge > MAX_SGE ||
	    a->cap.max_recv_sge > MAX_SGE || a->cap.max_inline_data > MAX_INLINE)
		return fail_ptr(EINVAL);
	if (ex) {
		if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
			return fail_ptr(EOPNOTSUPP);
		if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
			uint64_t allowed = a->qp_type == IBV_QPT_UD ? (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
				: a->qp_type == IBV_QPT_UC ? (QP_EX_OPS & ~(uint64_t)IBV_QP_EX_WITH_RDMA_READ) : QP_EX_OPS;

			ops = a->send_ops_flags;
			if (ops & ~allowed)
				return fail_ptr(EOPNOTSUPP);
		}
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail_ptr(ENOMEM);
	qp->cap = a->cap;
	if (qp->cap.max_send_wr == 0)
		qp->cap.max_send_wr = 1;
	if (qp->cap.max_send_sge == 0)
		qp->cap.max_send_sge = 1;
	qp->sq_mask = pow2_at_least(qp->cap.max_send_wr) - 1;
	qp->sq = calloc(qp->sq_mask + 1, sizeof(*qp->sq));
	if (!qp->sq) {
		free(qp);
		return fail_ptr(ENOMEM);
	}
	qp->sq_sig_all = a->sq_sig_all;
	qp->has_qpx = ops != 0;
	qp->send_ops = ops;
	qp->attr.qp_state = IBV_QPS_RESET;
	qp->attr.cap = qp->cap;

	struct ibv_qp *b = &qp->qpx.qp_base;
	b->context = context;
	b->qp_context = a->qp_context;
	b->pd = a->pd;
	b->send_cq = a->send_cq;
	b->recv_cq = a->recv_cq;
	b->srq = a->srq;
	b->qp_num = nctx(context)->next_qpn++ & 0xffffff;
	b->handle = b->qp_num;
	b->state = IBV_QPS_RESET;
	b->qp_type = a->qp_type;
	pthread_mutex_init(&b->mutex, NULL);
	pthread_cond_init(&b->cond, NULL);

	struct ibv_qp_ex *x = &qp->qpx;
	x->comp_mask = 0;
	x->wr_atomic_cmp_swp = null_wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = null_wr_atomic_fetch_add;
	x->wr_bind_mw = null_wr_bind_mw;
	x->wr_local_inv = null_wr_local_inv;
	x->wr_rdma_read = null_wr_rdma_read;
	x->wr_rdma_write = null_wr_rdma_write;
	x->wr_rdma_write_imm = null_wr_rdma_write_imm;
	x->wr_send = null_wr_send;
	x->wr_send_imm = null_wr_send_imm;
	x->wr_send_inv = null_wr_send_inv;
	x->wr_send_tso = null_wr_send_tso;
	x->wr_set_ud_addr = null_wr_set_ud_addr;
	x->wr_set_xrc_srqn = null_wr_set_xrc_srqn;
	x->wr_set_inline_data = null_wr_set_inline_data;
	x->wr_set_inline_data_list = null_wr_set_inline_data_list;
	x->wr_set_sge = null_wr_set_sge;
	x->wr_set_sge_list = null_wr_set_sge_list;
	x->wr_start = null_wr_start;
	x->wr_complete = null_wr_complete;
	x->wr_abort = null_wr_abort;
	x->wr_atomic_write = null_wr_atomic_write;
	return b;
}

static struct ibv_qp *null_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	return qp_new(context, attr, 1);
}

EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, sizeof(*attr)); /* ibv_qp_init_attr is the prefix of _ex */
	a.pd = pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	struct ibv_qp *qp = qp_new(pd->context, &a, 0);
	if (qp)
		attr->cap = nqp(qp)->cap;
	return qp;
}

EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	if (!nqp(qp)->has_qpx)
		return fail_ptr(EOPNOTSUPP);
	return &nqp(qp)->qpx;
}

EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct null_qp *qp = nqp(ibqp);
	struct ibv_qp_cap cap = qp->attr.cap;

	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state > IBV_QPS_ERR)
			return EINVAL;
		if (attr->qp_state == IBV_QPS_RESET) {
			qp->posted = qp->retired = qp->pending = 0;
			qp->recv_posted = 0;
		}
	}
	/* Records what it was told: the fields of the mask, as a device would keep them. */
	if (attr_mask & IBV_QP_STATE)
		qp->attr.qp_state = attr->qp_state;
	if (attr_mask & IBV_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (attr_mask & IBV_QP_PKEY_INDEX)
		qp->attr.pkey_index = attr->pkey_index;
	if (attr_mask & IBV_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (attr_mask & IBV_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (attr_mask & IBV_QP_AV)
		qp->attr.ah_attr = attr->ah_attr;
	if (attr_mask & IBV_QP_PATH_MTU)
		qp->attr.path_mtu = attr->path_mtu;
	if (attr_mask & IBV_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (attr_mask & IBV_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (attr_mask & IBV_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (attr_mask & IBV_QP_RQ_PSN)
		qp->attr.rq_psn = attr->rq_psn;
	if (attr_mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (attr_mask & IBV_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (attr_mask & IBV_QP_SQ_PSN)
		qp->attr.sq_psn = attr->sq_psn;
	if (attr_mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (attr_mask & IBV_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	qp->attr.cap = cap;
	ibqp->state = qp->attr.qp_state;
	return 0;
}

EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init)
{
	struct null_qp *qp = nqp(ibqp);

	(void)attr_mask;
	*attr = qp->attr;
	attr->cur_qp_state = qp->attr.qp_state;
	memset(init, 0, sizeof(*init));
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_all = qp->sq_sig_all;
	return 0;
}

EXPORT int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct null_qp *qp = nqp(ibqp);
	struct null_cq *cq = ncq(ibqp->send_cq);

	/* Completions of this QP still in its CQ no longer point at it. */
	for (uint64_t i = cq->head; i != cq->tail; i++)
		if (cq->ring[i & cq->mask].qp == qp)
			cq->ring[i & cq->mask].qp = NULL;
	free(qp->sq);
	free(qp);
	return 0;
}

EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	/* IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1): the WHOLE_MSG capability (1); else "in order" (1). */
	(void)flags;
	return 1;
}

/* ------------------------------------------------------------------ device, context, port */

EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list)
		return fail_ptr(ENOMEM);
	list[0] = &null_device;
	if (num_devices)
		*num_devices = 1;
	return list;
}

EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	(void)device;
	return htobe64(NULL_GUID);
}

EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	(void)device;
	return 0;
}

static int null_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
			   size_t attr_len);
static int null_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr, size_t attr_size);

static struct ibv_td *null_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr);
static int null_dealloc_td(struct ibv_td *td);
static struct ibv_pd *null_alloc_parent_domain(struct ibv_context *context, struct ibv_parent_domain_init_attr *attr);

EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct null_context *c;
	struct ibv_context *ctx;

	if (device != &null_device)
		return fail_ptr(ENODEV);
	c = calloc(1, sizeof(*c));
	if (!c)
		return fail_ptr(ENOMEM);
	ctx = &c->vctx.context;
	c->vctx.sz = sizeof(struct verbs_context);
	c->vctx.query_port = null_query_port;
	c->vctx.query_device_ex = null_query_device_ex;
	c->vctx.create_qp_ex = null_create_qp_ex;
	c->vctx.create_cq_ex = null_create_cq_ex;
	c->vctx.alloc_td = null_alloc_td;
	c->vctx.dealloc_td = null_dealloc_td;
	c->vctx.alloc_parent_domain = null_alloc_parent_domain;
	ctx->device = device;
	ctx->ops.poll_cq = null_poll_cq;
	ctx->ops.req_notify_cq = null_req_notify_cq;
	ctx->ops.post_send = null_post_send;
	ctx->ops.post_recv = null_post_recv;
	ctx->cmd_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ctx->async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); /* never readable: no async events */
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	c->next_qpn = 0x11;
	c->next_key = 0x100;
	return ctx;
}

EXPORT int ibv_close_device(struct ibv_context *context)
{
	if (context->cmd_fd >= 0)
		close(context->cmd_fd);
	if (context->async_fd >= 0)
		close(context->async_fd);
	free(nctx(context));
	return 0;
}

EXPORT int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *a)
{
	(void)context;
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "null 1.0");
	a->node_guid = htobe64(NULL_GUID);
	a->sys_image_guid = htobe64(NULL_GUID);
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 4096;
	a->vendor_id = 0xffffff;
	a->max_qp = 65536;
	a->max_qp_wr = MAX_QP_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->max_sge = MAX_SGE;
	a->max_sge_rd = MAX_SGE;
	a->max_cq = 65536;
	a->max_cqe = MAX_CQE;
	a->max_mr = 65536;
	a->max_pd = 65536;
	a->max_qp_rd_atom = 128;
	a->max_res_rd_atom = 65536;
	a->max_qp_init_rd_atom = 128;
	a->atomic_cap = IBV_ATOMIC_NONE;
	a->max_ah = 65536;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
	return 0;
}

static int null_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	(void)input;
	memset(&a, 0, sizeof(a));
	ibv_query_device(context, &a.orig_attr);
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

static void port_attr(struct ibv_port_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_1024;
	a->gid_tbl_len = NUM_GIDS;
	a->port_cap_flags = IBV_PORT_CM_SUP;
	a->max_msg_sz = 1u << 31;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	a->subnet_timeout = 0;
	a->active_width = 1;
	a->active_speed = 1;
	a->phys_state = 5; /* LinkUp */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

static int null_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
			   size_t attr_len)
{
	struct ibv_port_attr a;

	(void)context;
	if (port_num != 1)
		return EINVAL;
	port_attr(&a);
	memcpy(attr, &a, attr_len < sizeof(a) ? attr_len : sizeof(a));
	return 0;
}

#undef ibv_query_port
/* The exported compat entry: the struct without the fields added after link_layer/flags. */
EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *attr)
{
	return null_query_port(context, port_num, (struct ibv_port_attr *)attr,
			       offsetof(struct ibv_port_attr, port_cap_flags2));
}

static int gid_of(int index, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (index == 0) { /* fe80::0202:c9ff:fe4e:5500, the link-local GID from the GUID */
		gid->global.subnet_prefix = htobe64(0xfe80000000000000ull);
		gid->global.interface_id = htobe64(NULL_GUID ^ 0x0200000000000000ull);
		return 0;
	}
	if (index == 1) { /* ::ffff:127.0.0.1, a RoCE v2 entry */
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		gid->raw[12] = 127;
		gid->raw[15] = 1;
		return 0;
	}
	return -1;
}

EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	(void)context;
	if (port_num != 1 || gid_of(index, gid)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
			     struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	(void)context;
	(void)flags;
	if (port_num != 1 || entry_size < sizeof(*entry) || gid_of((int)gid_index, &entry->gid))
		return EINVAL;
	entry->gid_index = gid_index;
	entry->port_num = port_num;
	entry->gid_type = gid_index == 0 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2;
	entry->ndev_ifindex = 1;
	return 0;
}

EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
				    uint32_t flags, size_t entry_size)
{
	size_t n = 0;

	for (uint32_t i = 0; i < NUM_GIDS && n < max_entries; i++, n++)
		if (_ibv_query_gid_ex(context, 1, i, (struct ibv_gid_entry *)((char *)entries + n * entry_size), flags,
				      entry_size))
			return -EINVAL;
	return (ssize_t)n;
}

EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	(void)context;
	if (port_num != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16(0xffff);
	return 0;
}

EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	(void)context;
	return port_num == 1 && pkey == htobe16(0xffff) ? 0 : -1;
}

/* ------------------------------------------------------------------ PD, MR, AH */

EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return fail_ptr(ENOMEM);
	pd->context = context;
	pd->handle = nctx(context)->next_key++;
	return pd;
}

EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

/* Thread domains: null0 takes no lock anyway, so a thread domain changes nothing in it. A parent domain is a PD
 * of its own (freed by ibv_dealloc_pd) naming the same protection: QPs made in it behave as in the PD. They let
 * the Java side's thread-confined QPs (a QP created with a thread domain) be measured here. */
static struct ibv_td *null_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr)
{
	struct ibv_td *td;

	if (attr->comp_mask)
		return fail_ptr(EINVAL);
	td = calloc(1, sizeof(*td));
	if (!td)
		return fail_ptr(ENOMEM);
	td->context = context;
	return td;
}

static int null_dealloc_td(struct ibv_td *td)
{
	free(td);
	return 0;
}

static struct ibv_pd *null_alloc_parent_domain(struct ibv_context *context, struct ibv_parent_domain_init_attr *attr)
{
	struct ibv_pd *pd;

	if (!attr->pd || attr->comp_mask)
		return fail_ptr(EINVAL);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return fail_ptr(ENOMEM);
	pd->context = context;
	pd->handle = attr->pd->handle;
	return pd;
}

EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				       unsigned int access)
{
	struct ibv_mr *mr;

	(void)iova;
	if (access & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
				     IBV_ACCESS_ON_DEMAND | IBV_ACCESS_RELAXED_ORDERING | IBV_ACCESS_OPTIONAL_RANGE))
		return fail_ptr(EINVAL);
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return fail_ptr(ENOMEM);
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = nctx(pd->context)->next_key++;
	mr->lkey = mr->handle;
	mr->rkey = mr->handle;
	return mr;
}

#undef ibv_reg_mr
EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

#undef ibv_reg_mr_iova
EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;

	if (attr->port_num != 1)
		return fail_ptr(EINVAL);
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return fail_ptr(ENOMEM);
	ah->context = pd->context;
	ah->pd = pd;
	return ah;
}

EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

/* ------------------------------------------------------------------ strings */

EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	return status == IBV_WC_SUCCESS ? "success" : "error (null0 reports no errors)";
}

EXPORT const char *ibv_node_type_str(enum ibv_node_type t)
{
	return t == IBV_NODE_CA ? "InfiniBand channel adapter" : "unknown";
}

EXPORT const char *ibv_port_state_str(enum ibv_port_state s)
{
	static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};

	return (unsigned int)s < 6 ? names[s] : "unknown";
}

EXPORT const char *ibv_event_type_str(enum ibv_event_type e)
{
	(void)e;
	return "unknown";
}

EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	return rate == IBV_RATE_MAX ? 0 : (int)rate;
}

EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	return (enum ibv_rate)mult;
}

EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	return rate == IBV_RATE_MAX ? 0 : 2500 * (int)rate;
}

EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	return (enum ibv_rate)(mbps / 2500);
}

EXPORT int ibv_fork_init(void)
{
	return 0;
}

EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

EXPORT int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/* ------------------------------------------------------------------ not provided: ENOSYS */
/*
 * Declared with the header's own prototypes (so a signature drift fails the build). Functions that
 * return a pointer set errno and return NULL; those that return an int return ENOSYS where the verb
 * returns an errno, and -1 with errno set where it returns -1.
 */

/*
 * A completion channel can be made and attached to a CQ (DiSNI's createCQ requires one, issue 30), but it never
 * delivers an event: its fd is an eventfd nothing writes, and ibv_req_notify_cq and ibv_get_cq_event below fail
 * with ENOSYS.
 */
EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *ch;

	if (!context)
		return fail_ptr(EINVAL);
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return fail_ptr(ENOMEM);
	ch->context = context;
	ch->fd = eventfd(0, EFD_CLOEXEC);
	if (ch->fd < 0) {
		int e = errno;

		free(ch);
		return fail_ptr(e);
	}
	return ch;
}

EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	if (!channel)
		return EINVAL;
	if (channel->refcnt)
		return EBUSY;
	close(channel->fd);
	free(channel);
	return 0;
}

EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	(void)channel;
	(void)cq;
	(void)cq_context;
	errno = ENOSYS;
	return -1;
}

EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}

EXPORT int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	(void)context;
	(void)event;
	errno = EAGAIN; /* none ever happens */
	return -1;
}

EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	return ENOSYS;
}

EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	(void)pd;
	(void)attr;
	return fail_ptr(ENOSYS);
}

EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	(void)srq;
	(void)attr;
	(void)mask;
	return ENOSYS;
}

EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	(void)srq;
	(void)attr;
	return ENOSYS;
}

EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	return ENOSYS;
}

EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return ENOSYS;
}

EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return ENOSYS;
}

EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	return IBV_REREG_MR_ERR_INPUT;
}

EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
					int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	return fail_ptr(ENOSYS);
}

EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
					    uint8_t port_num)
{
	(void)pd;
	(void)wc;
	(void)grh;
	(void)port_num;
	return fail_ptr(ENOSYS);
}

EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
			       struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	(void)context;
	(void)port_num;
	(void)wc;
	(void)grh;
	(void)ah_attr;
	errno = ENOSYS;
	return -1;
}

EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr, uint8_t eth_mac[6],
				       uint16_t *vid)
{
	(void)context;
	(void)attr;
	(void)eth_mac;
	(void)vid;
	return ENOSYS;
}

EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	return fail_ptr(ENOSYS);
}

EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	return fail_ptr(ENOSYS);
}

EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	return fail_ptr(ENOSYS);
}

EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	return fail_ptr(ENOSYS);
}

EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return ENOSYS;
}

EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return ENOSYS;
}

/*
 * The old sysfs and kernel-ABI copy helpers of IBVERBS_1.0: their prototypes are in other rdma-core
 * headers (sa.h, driver.h), so they are declared here by hand; no verbs4j code calls them.
 */
EXPORT const char *ibv_get_sysfs_path(void);
EXPORT const char *ibv_get_sysfs_path(void)
{
	return "/sys";
}

EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	(void)dir;
	(void)file;
	(void)buf;
	(void)size;
	errno = ENOSYS;
	return -1;
}

EXPORT void ibv_copy_qp_attr_from_kern(void *dst, void *src);
EXPORT void ibv_copy_qp_attr_from_kern(void *dst, void *src)
{
	(void)dst;
	(void)src;
}

EXPORT void ibv_copy_ah_attr_from_kern(void *dst, void *src);
EXPORT void ibv_copy_ah_attr_from_kern(void *dst, void *src)
{
	(void)dst;
	(void)src;
}

EXPORT void ibv_copy_path_rec_from_kern(void *dst, void *src);
EXPORT void ibv_copy_path_rec_from_kern(void *dst, void *src)
{
	(void)dst;
	(void)src;
}

EXPORT void ibv_copy_path_rec_to_kern(void *dst, void *src);
EXPORT void ibv_copy_path_rec_to_kern(void *dst, void *src)
{
	(void)dst;
	(void)src;
}

/*
 * The one IBVERBS_PRIVATE_34 symbol that ibv_devinfo needs (declared in rdma-core's driver.h, not in
 * verbs.h): the GID's type, 0 for IB/RoCE v1 and 1 for RoCE v2 (enum ibv_gid_type_sysfs).
 */
EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type);
EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type)
{
	(void)context;
	if (port_num != 1 || index >= NUM_GIDS) {
		errno = EINVAL;
		return -1;
	}
	*type = index == 0 ? 0 : 1;
	return 0;
}
