/*
 * emu_ibverbs: a libibverbs.so.1 for tests whose verbs forward to the emulated provider running in the JVM that
 * loaded it (issue 26). The test JVM registers one upcall, emuverbs_register(up); every verb then marshals its
 * arguments into a flat array of int64 slots, calls up(op, slots), and unmarshals the answer into the installed
 * <infiniband/verbs.h> structs. It holds no verbs rule of its own: every check, state and limit is the emulated
 * engine's (org.verbs4j.provider.ffm.emuverbs.EmuVerbs on the Java side). Built by build-emuverbs.
 *
 * Over 600 lines: one libibverbs in one translation unit, as a provider library is, each forwarded verb a few
 * lines of marshalling.
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
#define SLOTS 64

/* The operations of the upcall; EmuVerbs.java has the same numbers. */
enum {
	OP_OPEN = 1, OP_CLOSE, OP_QUERY_DEVICE, OP_QUERY_PORT, OP_QUERY_GID, OP_ALLOC_PD, OP_DEALLOC_PD, OP_REG_MR,
	OP_DEREG_MR, OP_CREATE_CQ, OP_DESTROY_CQ, OP_POLL_CQ, OP_REQ_NOTIFY, OP_CREATE_QP, OP_MODIFY_QP,
	OP_QUERY_QP, OP_DESTROY_QP, OP_POST_SEND, OP_POST_RECV, OP_CREATE_AH, OP_DESTROY_AH, OP_DATA_IN_ORDER,
	OP_CREATE_SRQ, OP_MODIFY_SRQ, OP_QUERY_SRQ, OP_DESTROY_SRQ, OP_POST_SRQ_RECV, OP_ALLOC_MW, OP_DEALLOC_MW,
	OP_ALLOC_TD, OP_DEALLOC_TD, OP_WR_COMPLETE, OP_BIND_MW, OP_CREATE_CHANNEL, OP_DESTROY_CHANNEL,
	OP_GET_CQ_EVENT, OP_GET_ASYNC_EVENT, OP_MODIFY_CQ,
	/* numbered apart from the list above, so that verbs added beside them merge without renumbering */
	OP_ATTACH_MCAST = 60, OP_DETACH_MCAST,
	OP_QUERY_PKEY = 70, OP_GET_PKEY_INDEX, OP_QUERY_GID_EX, OP_QUERY_GID_TABLE, OP_QUERY_DEVICE_EX,
	OP_QUERY_RT_VALUES, OP_ADVISE_MR, OP_QUERY_ECE, OP_SET_ECE,
	OP_ALLOC_DM = 80, OP_FREE_DM, OP_MEMCPY_TO_DM, OP_MEMCPY_FROM_DM, OP_REG_DM_MR, OP_REREG_MR, OP_REG_DMABUF_MR,
	OP_OPEN_XRCD, OP_CLOSE_XRCD, OP_CREATE_SRQ_EX, OP_GET_SRQ_NUM, OP_OPEN_QP, OP_MODIFY_QP_RATE_LIMIT,
	OP_RESIZE_CQ = 64, OP_INIT_AH_FROM_WC,
};
#define WR_SLOTS 21
#define WC_SLOTS 15

typedef int (*emu_up_fn)(int op, int64_t *io);
static emu_up_fn up;

/* Registers the JVM's upcall; before it the library lists no device. */
EXPORT void emuverbs_register(emu_up_fn fn)
{
	up = fn;
}

static int call(int op, int64_t *io)
{
	if (!up)
		return ENODEV;
	return up(op, io);
}

static void *fail_ptr(int e)
{
	errno = e;
	return NULL;
}

struct emu_context {
	struct verbs_context vctx;
	int64_t h;
};
struct emu_pd {
	struct ibv_pd pd;
	int64_t h;
};
struct emu_mr {
	struct ibv_mr mr;
	int64_t h;
};
struct emu_ah {
	struct ibv_ah ah;
	int64_t h;
};
struct emu_cq {
	struct ibv_cq_ex cq;
	int64_t h;
	int64_t wc[WC_SLOTS]; /* the completion an extended poll holds */
	int polling; /* from a successful start_poll to its end_poll: a real provider holds the CQ's lock then */
};
struct emu_srq {
	struct ibv_srq srq;
	int64_t h;
};
struct emu_mw {
	struct ibv_mw mw;
	int64_t h;
};
struct emu_channel {
	struct ibv_comp_channel ch;
	int64_t h;
};
struct emu_td {
	struct ibv_td td;
	int64_t h;
};
struct emu_dm {
	struct ibv_dm dm;
	int64_t h;
};
struct emu_xrcd {
	struct ibv_xrcd xrcd;
	int64_t h;
};
struct emu_qp {
	struct ibv_qp_ex qpx;
	int64_t h;
	/* The open WR session: WRs and SGEs marshalled as post_send's, forwarded by wr_complete. */
	int64_t *swr;
	size_t nwr, capwr;
	int64_t *ssge;
	size_t nsge, capsge;
	char *inl; /* inline bytes copied at the setter */
	size_t ninl, capinl;
	int session_error;
};

static inline int64_t ctx_h(struct ibv_context *c)
{
	return ((struct emu_context *)((char *)c - offsetof(struct verbs_context, context)))->h;
}
static inline int64_t pd_h(struct ibv_pd *p) { return p ? ((struct emu_pd *)p)->h : 0; }
static inline int64_t mr_h(struct ibv_mr *p) { return p ? ((struct emu_mr *)p)->h : 0; }
static inline int64_t ah_h(struct ibv_ah *p) { return p ? ((struct emu_ah *)p)->h : 0; }
static inline int64_t cq_h(struct ibv_cq *p) { return p ? ((struct emu_cq *)p)->h : 0; }
static inline int64_t srq_h(struct ibv_srq *p) { return p ? ((struct emu_srq *)p)->h : 0; }
static inline int64_t mw_h(struct ibv_mw *p) { return p ? ((struct emu_mw *)p)->h : 0; }
static inline int64_t td_h(struct ibv_td *p) { return p ? ((struct emu_td *)p)->h : 0; }
static inline int64_t dm_h(struct ibv_dm *p) { return p ? ((struct emu_dm *)p)->h : 0; }
static inline int64_t xrcd_h(struct ibv_xrcd *p) { return p ? ((struct emu_xrcd *)p)->h : 0; }
static inline struct emu_qp *eqp(struct ibv_qp *p) { return (struct emu_qp *)p; }

/*
 * Address handles, windows and regions are not freed when destroyed but kept, their handle intact, among the last
 * QUARANTINE destroyed. A verb that reads one after its destroy (a post whose WR names it, because the caller let the
 * destroy run before or during the call) then hands the Java side a handle it knows was destroyed, and fails there
 * with EFAULT, where a real libibverbs would read freed memory (issue 26: the holds a post takes on what its WRs name).
 */
#define QUARANTINE 4096
static void *quarantine[QUARANTINE];
static size_t quarantine_next;
static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;

static void retire(void *p)
{
	void *oldest;

	pthread_mutex_lock(&quarantine_lock);
	oldest = quarantine[quarantine_next];
	quarantine[quarantine_next] = p;
	quarantine_next = (quarantine_next + 1) % QUARANTINE;
	pthread_mutex_unlock(&quarantine_lock);
	free(oldest);
}

/* ------------------------------------------------------------------ device, context, port, GID */

static struct ibv_device emu_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "emuverbs0",
	.dev_name = "uverbs0",
	.dev_path = "/sys/class/infiniband_verbs/uverbs0",
	.ibdev_path = "/sys/class/infiniband/emuverbs0",
};

EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list)
		return fail_ptr(ENOMEM);
	if (up)
		list[0] = &emu_device;
	if (num_devices)
		*num_devices = up ? 1 : 0;
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
	int64_t io[SLOTS] = {0};

	(void)device;
	if (call(OP_QUERY_DEVICE, io))
		return 0;
	return htobe64((uint64_t)io[1]);
}

EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	(void)device;
	return 0;
}

static int emu_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
			  size_t attr_len);
static int emu_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
static struct ibv_qp *emu_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr);
static struct ibv_cq_ex *emu_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr);
static int emu_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static int emu_req_notify_cq(struct ibv_cq *cq, int solicited_only);
static int emu_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
static int emu_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
static int emu_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
static struct ibv_mw *emu_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
static int emu_dealloc_mw(struct ibv_mw *mw);
static int emu_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind);
static struct ibv_td *emu_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *init_attr);
static int emu_dealloc_td(struct ibv_td *td);
static struct ibv_pd *emu_alloc_parent_domain(struct ibv_context *context, struct ibv_parent_domain_init_attr *attr);
static int emu_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
static int emu_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr);
static int emu_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values);
static int emu_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
static struct ibv_dm *emu_alloc_dm(struct ibv_context *context, struct ibv_alloc_dm_attr *attr);
static int emu_free_dm(struct ibv_dm *dm);
static struct ibv_mr *emu_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset, size_t length,
				    unsigned int access);
static struct ibv_xrcd *emu_open_xrcd(struct ibv_context *context, struct ibv_xrcd_init_attr *attr);
static int emu_close_xrcd(struct ibv_xrcd *xrcd);
static struct ibv_srq *emu_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *attr);
static int emu_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
static struct ibv_qp *emu_open_qp(struct ibv_context *context, struct ibv_qp_open_attr *attr);

EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	int64_t io[SLOTS] = {0};
	struct emu_context *c;
	struct ibv_context *ctx;
	int e;

	if (device != &emu_device)
		return fail_ptr(ENODEV);
	/* Asynchronous events: the JVM writes 1 to this eventfd per event it queued; ibv_get_async_event reads 1. */
	int afd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);

	if (afd < 0)
		return NULL;
	io[1] = afd;
	e = call(OP_OPEN, io);
	if (e) {
		close(afd);
		return fail_ptr(e);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return fail_ptr(ENOMEM);
	c->h = io[0];
	ctx = &c->vctx.context;
	c->vctx.sz = sizeof(struct verbs_context);
	c->vctx.query_port = emu_query_port;
	c->vctx.query_device_ex = emu_query_device_ex;
	c->vctx.create_qp_ex = emu_create_qp_ex;
	c->vctx.create_cq_ex = emu_create_cq_ex;
	c->vctx.alloc_td = emu_alloc_td;
	c->vctx.dealloc_td = emu_dealloc_td;
	c->vctx.alloc_parent_domain = emu_alloc_parent_domain;
	c->vctx.modify_cq = emu_modify_cq;
	c->vctx.modify_qp_rate_limit = emu_modify_qp_rate_limit;
	c->vctx.query_rt_values = emu_query_rt_values;
	c->vctx.advise_mr = emu_advise_mr;
	c->vctx.alloc_dm = emu_alloc_dm;
	c->vctx.free_dm = emu_free_dm;
	c->vctx.reg_dm_mr = emu_reg_dm_mr;
	c->vctx.open_xrcd = emu_open_xrcd;
	c->vctx.close_xrcd = emu_close_xrcd;
	c->vctx.create_srq_ex = emu_create_srq_ex;
	c->vctx.get_srq_num = emu_get_srq_num;
	c->vctx.open_qp = emu_open_qp;
	ctx->device = device;
	ctx->ops.poll_cq = emu_poll_cq;
	ctx->ops.req_notify_cq = emu_req_notify_cq;
	ctx->ops.post_send = emu_post_send;
	ctx->ops.post_recv = emu_post_recv;
	ctx->ops.post_srq_recv = emu_post_srq_recv;
	ctx->ops.alloc_mw = emu_alloc_mw;
	ctx->ops.dealloc_mw = emu_dealloc_mw;
	ctx->ops.bind_mw = emu_bind_mw;
	ctx->cmd_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ctx->async_fd = afd;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	return ctx;
}

EXPORT int ibv_close_device(struct ibv_context *context)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	int e = call(OP_CLOSE, io);

	if (e)
		return e;
	if (context->cmd_fd >= 0)
		close(context->cmd_fd);
	if (context->async_fd >= 0)
		close(context->async_fd);
	free((char *)context - offsetof(struct verbs_context, context));
	return 0;
}

EXPORT int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *a)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	int e = call(OP_QUERY_DEVICE, io);

	if (e)
		return e;
	memset(a, 0, sizeof(*a));
	memcpy(a->fw_ver, &io[40], sizeof(a->fw_ver) - 1);
	a->node_guid = htobe64((uint64_t)io[1]);
	a->sys_image_guid = htobe64((uint64_t)io[2]);
	a->max_mr_size = (uint64_t)io[3];
	a->page_size_cap = (uint64_t)io[4];
	a->vendor_id = (uint32_t)io[5];
	a->vendor_part_id = (uint32_t)io[6];
	a->hw_ver = (uint32_t)io[7];
	a->max_qp = (int)io[8];
	a->max_qp_wr = (int)io[9];
	a->device_cap_flags = (unsigned int)io[10];
	a->max_sge = (int)io[11];
	a->max_sge_rd = (int)io[12];
	a->max_cq = (int)io[13];
	a->max_cqe = (int)io[14];
	a->max_mr = (int)io[15];
	a->max_pd = (int)io[16];
	a->max_qp_rd_atom = (int)io[17];
	a->max_ee_rd_atom = (int)io[18];
	a->max_res_rd_atom = (int)io[19];
	a->max_qp_init_rd_atom = (int)io[20];
	a->max_ee_init_rd_atom = (int)io[21];
	a->atomic_cap = (enum ibv_atomic_cap)io[22];
	a->max_ee = (int)io[23];
	a->max_rdd = (int)io[24];
	a->max_mw = (int)io[25];
	a->max_raw_ipv6_qp = (int)io[26];
	a->max_raw_ethy_qp = (int)io[27];
	a->max_mcast_grp = (int)io[28];
	a->max_mcast_qp_attach = (int)io[29];
	a->max_total_mcast_qp_attach = (int)io[30];
	a->max_ah = (int)io[31];
	a->max_fmr = (int)io[32];
	a->max_map_per_fmr = (int)io[33];
	a->max_srq = (int)io[34];
	a->max_srq_wr = (int)io[35];
	a->max_srq_sge = (int)io[36];
	a->max_pkeys = (uint16_t)io[37];
	a->local_ca_ack_delay = (uint8_t)io[38];
	a->phys_port_cnt = (uint8_t)io[39];
	return 0;
}

static int emu_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;
	int64_t io[SLOTS] = {0};
	int e;

	(void)input;
	memset(&a, 0, sizeof(a));
	e = ibv_query_device(context, &a.orig_attr);
	if (e)
		return e;
	io[0] = ctx_h(context);
	e = call(OP_QUERY_DEVICE_EX, io);
	if (e)
		return e;
	a.comp_mask = (uint32_t)io[1];
	a.odp_caps.general_caps = (uint64_t)io[2];
	a.odp_caps.per_transport_caps.rc_odp_caps = (uint32_t)io[3];
	a.odp_caps.per_transport_caps.uc_odp_caps = (uint32_t)io[4];
	a.odp_caps.per_transport_caps.ud_odp_caps = (uint32_t)io[5];
	a.completion_timestamp_mask = (uint64_t)io[6];
	a.hca_core_clock = (uint64_t)io[7];
	a.device_cap_flags_ex = (uint64_t)io[8];
	a.tso_caps.max_tso = (uint32_t)io[9];
	a.tso_caps.supported_qpts = (uint32_t)io[10];
	a.rss_caps.supported_qpts = (uint32_t)io[11];
	a.rss_caps.max_rwq_indirection_tables = (uint32_t)io[12];
	a.rss_caps.max_rwq_indirection_table_size = (uint32_t)io[13];
	a.rss_caps.rx_hash_fields_mask = (uint64_t)io[14];
	a.rss_caps.rx_hash_function = (uint8_t)io[15];
	a.max_wq_type_rq = (uint32_t)io[16];
	a.packet_pacing_caps.qp_rate_limit_min = (uint32_t)io[17];
	a.packet_pacing_caps.qp_rate_limit_max = (uint32_t)io[18];
	a.packet_pacing_caps.supported_qpts = (uint32_t)io[19];
	a.raw_packet_caps = (uint32_t)io[20];
	a.tm_caps.max_rndv_hdr_size = (uint32_t)io[21];
	a.tm_caps.max_num_tags = (uint32_t)io[22];
	a.tm_caps.flags = (uint32_t)io[23];
	a.tm_caps.max_ops = (uint32_t)io[24];
	a.tm_caps.max_sge = (uint32_t)io[25];
	a.cq_mod_caps.max_cq_count = (uint16_t)io[26];
	a.cq_mod_caps.max_cq_period = (uint16_t)io[27];
	a.max_dm_size = (uint64_t)io[28];
	a.pci_atomic_caps.fetch_add = (uint16_t)io[29];
	a.pci_atomic_caps.swap = (uint16_t)io[30];
	a.pci_atomic_caps.compare_swap = (uint16_t)io[31];
	a.xrc_odp_caps = (uint32_t)io[32];
	a.phys_port_cnt_ex = (uint32_t)io[33];
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

/* The SGEs go as they are (addr, length, lkey: struct ibv_sge); the engine checks each. */
static int emu_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges)
{
	int64_t io[SLOTS] = {pd_h(pd), advice, flags, (int64_t)(uintptr_t)sg_list, num_sges};

	return call(OP_ADVISE_MR, io);
}

/* ECE: the three fields as they are; the engine answers (EOPNOTSUPP for a device without ECE). */
EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	int64_t io[SLOTS] = {eqp(qp)->h};
	int e = call(OP_QUERY_ECE, io);

	if (e)
		return e;
	ece->vendor_id = (uint32_t)io[1];
	ece->options = (uint32_t)io[2];
	ece->comp_mask = (uint32_t)io[3];
	return 0;
}

EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	int64_t io[SLOTS] = {eqp(qp)->h, ece->vendor_id, ece->options, ece->comp_mask};

	return call(OP_SET_ECE, io);
}

/* The raw clock as a device with a free-running counter gives it: the count in tv_nsec, tv_sec 0. */
static int emu_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	int e;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (!(values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	e = call(OP_QUERY_RT_VALUES, io);
	if (e)
		return e;
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = (long)io[1];
	return 0;
}

static int emu_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr,
			  size_t attr_len)
{
	int64_t io[SLOTS] = {ctx_h(context), port_num};
	struct ibv_port_attr a;
	int e = call(OP_QUERY_PORT, io);

	if (e)
		return e;
	memset(&a, 0, sizeof(a));
	a.state = (enum ibv_port_state)io[2];
	a.max_mtu = (enum ibv_mtu)io[3];
	a.active_mtu = (enum ibv_mtu)io[4];
	a.gid_tbl_len = (int)io[5];
	a.port_cap_flags = (uint32_t)io[6];
	a.max_msg_sz = (uint32_t)io[7];
	a.bad_pkey_cntr = (uint32_t)io[8];
	a.qkey_viol_cntr = (uint32_t)io[9];
	a.pkey_tbl_len = (uint16_t)io[10];
	a.lid = (uint16_t)io[11];
	a.sm_lid = (uint16_t)io[12];
	a.lmc = (uint8_t)io[13];
	a.max_vl_num = (uint8_t)io[14];
	a.sm_sl = (uint8_t)io[15];
	a.subnet_timeout = (uint8_t)io[16];
	a.init_type_reply = (uint8_t)io[17];
	a.active_width = (uint8_t)io[18];
	a.active_speed = (uint8_t)io[19];
	a.phys_state = (uint8_t)io[20];
	a.link_layer = (uint8_t)io[21];
	a.flags = (uint8_t)io[22];
	a.port_cap_flags2 = (uint16_t)io[23];
	memcpy(attr, &a, attr_len < sizeof(a) ? attr_len : sizeof(a));
	return 0;
}

#undef ibv_query_port
EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *attr)
{
	return emu_query_port(context, port_num, (struct ibv_port_attr *)attr,
			      offsetof(struct ibv_port_attr, port_cap_flags2));
}

/* io[3] gid type (0 IB/RoCE v1, 1 RoCE v2), io[4..5] the 16 raw bytes */
static int gid_of(struct ibv_context *context, uint32_t port, uint32_t index, union ibv_gid *gid, int *type)
{
	int64_t io[SLOTS] = {ctx_h(context), port, index};
	int e = call(OP_QUERY_GID, io);

	if (e)
		return e;
	memcpy(gid->raw, &io[4], 16);
	if (type)
		*type = (int)io[3];
	return 0;
}

EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	int e = gid_of(context, port_num, (uint32_t)index, gid, NULL);

	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* The Java side writes the struct ibv_gid_entry (or entries) at the address it is given. */
EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
			     struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	int64_t io[SLOTS] = {ctx_h(context), port_num, gid_index, (int64_t)(intptr_t)entry};

	if (flags)
		return EOPNOTSUPP;
	if (entry_size < sizeof(*entry))
		return EINVAL;
	return call(OP_QUERY_GID_EX, io);
}

EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
				    uint32_t flags, size_t entry_size)
{
	int64_t io[SLOTS] = {ctx_h(context), (int64_t)(intptr_t)entries, (int64_t)max_entries, (int64_t)entry_size};
	int e;

	if (flags)
		return -EOPNOTSUPP;
	if (entry_size < sizeof(*entries))
		return -EINVAL;
	e = call(OP_QUERY_GID_TABLE, io);
	return e ? -e : (ssize_t)io[4];
}

EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	int64_t io[SLOTS] = {ctx_h(context), port_num, index};
	int e = call(OP_QUERY_PKEY, io);

	if (e) {
		errno = e;
		return -1;
	}
	*pkey = htobe16((uint16_t)io[3]);
	return 0;
}

EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	int64_t io[SLOTS] = {ctx_h(context), port_num, be16toh(pkey)};
	int e = call(OP_GET_PKEY_INDEX, io);

	if (e) {
		errno = e;
		return -1;
	}
	return (int)io[3];
}

/* ------------------------------------------------------------------ PD, MR, AH, TD, MW, DM */

EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	struct emu_pd *p;
	int e = call(OP_ALLOC_PD, io);

	if (e)
		return fail_ptr(e);
	p = calloc(1, sizeof(*p));
	p->pd.context = context;
	p->pd.handle = (uint32_t)io[1];
	p->h = io[1];
	return &p->pd;
}

EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int64_t io[SLOTS] = {pd_h(pd)};
	int e;

	if (pd->handle == 0xffffffffu) { /* a parent domain: its PD is the caller's to deallocate */
		free(pd);
		return 0;
	}
	e = call(OP_DEALLOC_PD, io);

	if (!e)
		free(pd);
	return e;
}

/* The C side of a region the engine registered: its handle, lkey and rkey are io[at], io[at + 1] and io[at + 2]. */
static struct ibv_mr *new_mr(struct ibv_pd *pd, void *addr, size_t length, const int64_t *io, int at)
{
	struct emu_mr *m = calloc(1, sizeof(*m));

	if (!m)
		return fail_ptr(ENOMEM);
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.handle = (uint32_t)io[at];
	m->mr.lkey = (uint32_t)io[at + 1];
	m->mr.rkey = (uint32_t)io[at + 2];
	m->h = io[at];
	return &m->mr;
}

EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				       unsigned int access)
{
	int64_t io[SLOTS] = {pd_h(pd), (int64_t)(uintptr_t)addr, (int64_t)length, access, (int64_t)iova};
	int e = call(OP_REG_MR, io);

	if (e)
		return fail_ptr(e);
	return new_mr(pd, addr, length, io, 5);
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
	int64_t io[SLOTS] = {mr_h(mr)};
	int e = call(OP_DEREG_MR, io);

	if (!e)
		retire(mr);
	return e;
}

/* ah_attr into io[at..at+12] */
static void put_ah(int64_t *io, int at, const struct ibv_ah_attr *a)
{
	io[at] = a->dlid;
	io[at + 1] = a->sl;
	io[at + 2] = a->src_path_bits;
	io[at + 3] = a->static_rate;
	io[at + 4] = a->is_global;
	io[at + 5] = a->port_num;
	memcpy(&io[at + 6], a->grh.dgid.raw, 16);
	io[at + 8] = a->grh.flow_label;
	io[at + 9] = a->grh.sgid_index;
	io[at + 10] = a->grh.hop_limit;
	io[at + 11] = a->grh.traffic_class;
}

static void get_ah(const int64_t *io, int at, struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->dlid = (uint16_t)io[at];
	a->sl = (uint8_t)io[at + 1];
	a->src_path_bits = (uint8_t)io[at + 2];
	a->static_rate = (uint8_t)io[at + 3];
	a->is_global = (uint8_t)io[at + 4];
	a->port_num = (uint8_t)io[at + 5];
	memcpy(a->grh.dgid.raw, &io[at + 6], 16);
	a->grh.flow_label = (uint32_t)io[at + 8];
	a->grh.sgid_index = (uint8_t)io[at + 9];
	a->grh.hop_limit = (uint8_t)io[at + 10];
	a->grh.traffic_class = (uint8_t)io[at + 11];
}

EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	int64_t io[SLOTS] = {pd_h(pd)};
	struct emu_ah *a;
	int e;

	put_ah(io, 1, attr);
	e = call(OP_CREATE_AH, io);
	if (e)
		return fail_ptr(e);
	a = calloc(1, sizeof(*a));
	a->ah.context = pd->context;
	a->ah.pd = pd;
	a->ah.handle = (uint32_t)io[20];
	a->h = io[20];
	return &a->ah;
}

/* The completion's fields libibverbs reads and the 40 GRH bytes go to the engine, which builds the vector; the
 * answer comes back as ibv_query_qp's. -1 with errno set, as libibverbs returns. */
EXPORT int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
			       struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	int64_t io[SLOTS] = {ctx_h(context), port_num, wc->wc_flags, wc->slid, wc->sl, wc->dlid_path_bits};
	int e;

	memcpy(&io[6], grh, 40);
	e = call(OP_INIT_AH_FROM_WC, io);
	if (e) {
		errno = e;
		return -1;
	}
	get_ah(io, 16, ah_attr);
	return 0;
}

EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
					    uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	int64_t io[SLOTS] = {ah_h(ah)};
	int e = call(OP_DESTROY_AH, io);

	if (!e)
		retire(ah);
	return e;
}

static struct ibv_td *emu_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *init_attr)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	struct emu_td *t;
	int e;

	if (init_attr && init_attr->comp_mask)
		return fail_ptr(EINVAL);
	e = call(OP_ALLOC_TD, io);
	if (e)
		return fail_ptr(e);
	t = calloc(1, sizeof(*t));
	t->td.context = context;
	t->h = io[1];
	return &t->td;
}

static int emu_dealloc_td(struct ibv_td *td)
{
	int64_t io[SLOTS] = {td_h(td)};
	int e = call(OP_DEALLOC_TD, io);

	if (!e)
		free(td);
	return e;
}

/* Device memory: the engine's DeviceMemory; the copies go through it, the host bytes by address. */
static int emu_memcpy_to_dm(struct ibv_dm *dm, uint64_t dm_offset, const void *host_addr, size_t length)
{
	int64_t io[SLOTS] = {dm_h(dm), (int64_t)dm_offset, (int64_t)(uintptr_t)host_addr, (int64_t)length};

	return call(OP_MEMCPY_TO_DM, io);
}

static int emu_memcpy_from_dm(void *host_addr, struct ibv_dm *dm, uint64_t dm_offset, size_t length)
{
	int64_t io[SLOTS] = {dm_h(dm), (int64_t)dm_offset, (int64_t)(uintptr_t)host_addr, (int64_t)length};

	return call(OP_MEMCPY_FROM_DM, io);
}

static struct ibv_dm *emu_alloc_dm(struct ibv_context *context, struct ibv_alloc_dm_attr *attr)
{
	int64_t io[SLOTS] = {ctx_h(context), (int64_t)attr->length, attr->log_align_req, attr->comp_mask};
	struct emu_dm *d = calloc(1, sizeof(*d));
	int e;

	if (!d)
		return fail_ptr(ENOMEM);
	e = call(OP_ALLOC_DM, io);
	if (e) {
		free(d);
		return fail_ptr(e);
	}
	d->dm.context = context;
	d->dm.memcpy_to_dm = emu_memcpy_to_dm;
	d->dm.memcpy_from_dm = emu_memcpy_from_dm;
	d->dm.handle = (uint32_t)io[4];
	d->h = io[4];
	return &d->dm;
}

static int emu_free_dm(struct ibv_dm *dm)
{
	int64_t io[SLOTS] = {dm_h(dm)};
	int e = call(OP_FREE_DM, io);

	if (!e)
		free(dm);
	return e;
}

/* A zero-based region of device memory: an emu_mr as ibv_reg_mr_iova2 builds it, so ibv_dereg_mr takes it. */
static struct ibv_mr *emu_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset, size_t length,
				    unsigned int access)
{
	int64_t io[SLOTS] = {pd_h(pd), dm_h(dm), (int64_t)dm_offset, (int64_t)length, access};
	int e = call(OP_REG_DM_MR, io);

	if (e)
		return fail_ptr(e);
	return new_mr(pd, NULL, length, io, 5); /* zero-based: the region's first byte is 0 */
}

/* A parent domain is its PD with a thread domain attached: the same handle, the TD forwarded at QP creation. */
struct emu_parent {
	struct emu_pd p;
	struct ibv_td *td;
};

static struct ibv_pd *emu_alloc_parent_domain(struct ibv_context *context, struct ibv_parent_domain_init_attr *attr)
{
	struct emu_parent *pp;

	(void)context;
	if (!attr || !attr->pd || attr->comp_mask)
		return fail_ptr(EINVAL);
	pp = calloc(1, sizeof(*pp));
	pp->p.pd = *attr->pd;
	pp->p.pd.handle = 0xffffffffu; /* marks a parent domain */
	pp->p.h = pd_h(attr->pd);
	pp->td = attr->td;
	return &pp->p.pd;
}

static struct ibv_mw *emu_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	int64_t io[SLOTS] = {pd_h(pd), type};
	struct emu_mw *m;
	int e = call(OP_ALLOC_MW, io);

	if (e)
		return fail_ptr(e);
	m = calloc(1, sizeof(*m));
	m->mw.context = pd->context;
	m->mw.pd = pd;
	m->mw.rkey = (uint32_t)io[3];
	m->mw.handle = (uint32_t)io[2];
	m->mw.type = type;
	m->h = io[2];
	return &m->mw;
}

static int emu_dealloc_mw(struct ibv_mw *mw)
{
	int64_t io[SLOTS] = {mw_h(mw)};
	int e = call(OP_DEALLOC_MW, io);

	if (!e)
		retire(mw);
	return e;
}

/* ------------------------------------------------------------------ CQs */

/* One flat completion (WC_SLOTS slots) into an ibv_wc. */
static void get_wc(const int64_t *s, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = (uint64_t)s[0];
	wc->status = (enum ibv_wc_status)s[1];
	wc->opcode = (enum ibv_wc_opcode)s[2];
	wc->vendor_err = (uint32_t)s[3];
	wc->byte_len = (uint32_t)s[4];
	wc->wc_flags = (unsigned int)s[8];
	if (wc->wc_flags & IBV_WC_WITH_INV)
		wc->invalidated_rkey = (uint32_t)s[5];
	else
		wc->imm_data = htobe32((uint32_t)s[5]);
	wc->qp_num = (uint32_t)s[6];
	wc->src_qp = (uint32_t)s[7];
	wc->pkey_index = (uint16_t)s[9];
	wc->slid = (uint16_t)s[10];
	wc->sl = (uint8_t)s[11];
	wc->dlid_path_bits = (uint8_t)s[12];
}

static int emu_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int64_t io[SLOTS] = {cq_h(cq), n};
	int64_t *flat;
	int e;

	if (n <= 0)
		return 0;
	flat = malloc((size_t)n * WC_SLOTS * sizeof(int64_t));
	if (!flat)
		return -1;
	io[2] = (int64_t)(uintptr_t)flat;
	e = call(OP_POLL_CQ, io);
	if (e) {
		free(flat);
		return -1;
	}
	for (int i = 0; i < (int)io[3]; i++)
		get_wc(flat + (size_t)i * WC_SLOTS, wc + i);
	free(flat);
	return (int)io[3];
}

static int emu_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int64_t io[SLOTS] = {cq_h(cq), solicited_only};

	return call(OP_REQ_NOTIFY, io);
}

static inline struct emu_cq *ecqx(struct ibv_cq_ex *c)
{
	return (struct emu_cq *)c;
}

static int poll_one(struct ibv_cq_ex *cqx)
{
	int64_t io[SLOTS] = {ecqx(cqx)->h, 1, (int64_t)(uintptr_t)ecqx(cqx)->wc};
	int e = call(OP_POLL_CQ, io);

	if (e)
		return e;
	if (io[3] == 0)
		return ENOENT;
	cqx->wr_id = (uint64_t)ecqx(cqx)->wc[0];
	cqx->status = (enum ibv_wc_status)ecqx(cqx)->wc[1];
	return 0;
}

static int emu_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	int e;

	if (attr && attr->comp_mask)
		return EINVAL;
	/*
	 * A start_poll before the last successful one's end_poll: rxe and mlx5 would spin forever on the CQ's lock,
	 * which the first still holds (ibv_create_cq_ex(3): end_poll must follow a successful start_poll). Answered
	 * with EDEADLK, so the caller's bug shows as an error instead of a hang. The caller serializes a CQ's polls.
	 */
	if (ecqx(cqx)->polling)
		return EDEADLK;
	e = poll_one(cqx);
	if (!e)
		ecqx(cqx)->polling = 1;
	return e;
}

static int emu_next_poll(struct ibv_cq_ex *cqx)
{
	return poll_one(cqx);
}

static void emu_end_poll(struct ibv_cq_ex *cqx)
{
	ecqx(cqx)->polling = 0;
}

static enum ibv_wc_opcode emu_read_opcode(struct ibv_cq_ex *c) { return (enum ibv_wc_opcode)ecqx(c)->wc[2]; }
static uint32_t emu_read_vendor_err(struct ibv_cq_ex *c) { return (uint32_t)ecqx(c)->wc[3]; }
static uint32_t emu_read_byte_len(struct ibv_cq_ex *c) { return (uint32_t)ecqx(c)->wc[4]; }
/* ibv_wc_read_invalidated_rkey reads it too: the rkey of a WITH_INV completion is in host order */
static __be32 emu_read_imm_data(struct ibv_cq_ex *c)
{
	return ecqx(c)->wc[8] & IBV_WC_WITH_INV ? (uint32_t)ecqx(c)->wc[5] : htobe32((uint32_t)ecqx(c)->wc[5]);
}
static uint32_t emu_read_qp_num(struct ibv_cq_ex *c) { return (uint32_t)ecqx(c)->wc[6]; }
static uint32_t emu_read_src_qp(struct ibv_cq_ex *c) { return (uint32_t)ecqx(c)->wc[7]; }
static unsigned int emu_read_wc_flags(struct ibv_cq_ex *c) { return (unsigned int)ecqx(c)->wc[8]; }
static uint32_t emu_read_slid(struct ibv_cq_ex *c) { return (uint32_t)ecqx(c)->wc[10]; }
static uint8_t emu_read_sl(struct ibv_cq_ex *c) { return (uint8_t)ecqx(c)->wc[11]; }
static uint8_t emu_read_dlid_path_bits(struct ibv_cq_ex *c) { return (uint8_t)ecqx(c)->wc[12]; }
static uint64_t emu_read_completion_ts(struct ibv_cq_ex *c) { return (uint64_t)ecqx(c)->wc[13]; }
static uint64_t emu_read_completion_wallclock_ns(struct ibv_cq_ex *c) { return (uint64_t)ecqx(c)->wc[14]; }

/* The wc_flags with a reader here; the engine says which of the timestamps its device stamps. */
#define WC_FLAGS_SUPPORTED                                                                                   \
	(IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |                                      \
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

static struct emu_cq *cq_new(struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel,
			     int comp_vector, uint64_t wc_flags)
{
	int64_t io[SLOTS] = {ctx_h(context), cqe, channel ? ((struct emu_channel *)channel)->h : 0, comp_vector};
	struct emu_cq *c = calloc(1, sizeof(*c));
	int e;

	if (!c)
		return fail_ptr(ENOMEM);
	io[6] = (int64_t)(uintptr_t)c;
	io[7] = (int64_t)(wc_flags | IBV_WC_STANDARD_FLAGS);
	e = call(OP_CREATE_CQ, io);
	if (e) {
		free(c);
		return fail_ptr(e);
	}
	c->h = io[4];
	c->cq.context = context;
	c->cq.channel = channel;
	c->cq.cq_context = cq_context;
	c->cq.cqe = (int)io[5];
	c->cq.handle = (uint32_t)io[4];
	pthread_mutex_init(&c->cq.mutex, NULL);
	pthread_cond_init(&c->cq.cond, NULL);
	c->cq.start_poll = emu_start_poll;
	c->cq.next_poll = emu_next_poll;
	c->cq.end_poll = emu_end_poll;
	c->cq.read_opcode = emu_read_opcode;
	c->cq.read_vendor_err = emu_read_vendor_err;
	c->cq.read_byte_len = emu_read_byte_len;
	c->cq.read_imm_data = emu_read_imm_data;
	c->cq.read_qp_num = emu_read_qp_num;
	c->cq.read_src_qp = emu_read_src_qp;
	c->cq.read_wc_flags = emu_read_wc_flags;
	c->cq.read_slid = emu_read_slid;
	c->cq.read_sl = emu_read_sl;
	c->cq.read_dlid_path_bits = emu_read_dlid_path_bits;
	/* as a driver does, a timestamp reader only where the CQ stamps that kind */
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		c->cq.read_completion_ts = emu_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		c->cq.read_completion_wallclock_ns = emu_read_completion_wallclock_ns;
	return c;
}

EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector)
{
	struct emu_cq *c = cq_new(context, cqe, cq_context, channel, comp_vector, 0);

	return c ? ibv_cq_ex_to_cq(&c->cq) : NULL;
}

static struct ibv_cq_ex *emu_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	struct emu_cq *c;

	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS)
		return fail_ptr(EOPNOTSUPP);
	if (attr->wc_flags & ~(uint64_t)WC_FLAGS_SUPPORTED)
		return fail_ptr(EOPNOTSUPP);
	c = cq_new(context, (int)attr->cqe, attr->cq_context, attr->channel, (int)attr->comp_vector, attr->wc_flags);
	return c ? &c->cq : NULL;
}

EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	int64_t io[SLOTS] = {cq_h(cq)};
	int e = call(OP_DESTROY_CQ, io);

	if (!e)
		free(cq);
	return e;
}

/* The size the engine granted becomes cq->cqe, as ibv_cmd_resize_cq writes the kernel's answer there. */
EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	int64_t io[SLOTS] = {cq_h(cq), cqe};
	int e = call(OP_RESIZE_CQ, io);

	if (!e)
		cq->cqe = (int)io[2];
	return e;
}

/* ------------------------------------------------------------------ QPs */

static void wr_start(struct ibv_qp_ex *qpx);
static int wr_complete(struct ibv_qp_ex *qpx);
static void wr_abort(struct ibv_qp_ex *qpx);
static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr);
static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, __be32 imm);
static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr);
static void wr_send(struct ibv_qp_ex *qpx);
static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm);
static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey);
static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
			      uint64_t swap);
static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t add);
static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *info);
static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey);
static void wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr);
static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length);
static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge, const struct ibv_sge *sg_list);
static void wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length);
static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf, const struct ibv_data_buf *buf);
static void wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey);
static void wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn);

/* The send_ops_flags of rdma-core 44's header, whose builders its struct ibv_qp_ex has (FLUSH, 1 << 11, is not). */
#define EMU_SEND_OPS ((uint64_t)(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND \
	| IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP \
	| IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW \
	| IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_TSO | IBV_QP_EX_WITH_ATOMIC_WRITE))

/* The fields of a new QP's C struct, and its WR-session builders, whether created or opened (ibv_open_qp). */
static struct ibv_qp *qp_init(struct emu_qp *qp, struct ibv_context *context, void *qp_context, struct ibv_pd *pd,
			      enum ibv_qp_type type, uint32_t qp_num)
{
	struct ibv_qp *b = &qp->qpx.qp_base;
	struct ibv_qp_ex *x = &qp->qpx;

	b->context = context;
	b->qp_context = qp_context;
	b->pd = pd;
	b->qp_num = qp_num;
	b->handle = (uint32_t)qp->h;
	b->state = IBV_QPS_RESET;
	b->qp_type = type;
	pthread_mutex_init(&b->mutex, NULL);
	pthread_cond_init(&b->cond, NULL);
	x->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = wr_atomic_fetch_add;
	x->wr_bind_mw = wr_bind_mw;
	x->wr_local_inv = wr_local_inv;
	x->wr_atomic_write = wr_atomic_write;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_send_inv = wr_send_inv;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_xrc_srqn = wr_set_xrc_srqn;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	return b;
}

/* An XRC_RECV QP is made in the XRC domain (io[21]), with no PD, CQ or queue; the engine checks the rest. */
static struct ibv_qp *qp_new(struct ibv_context *context, struct ibv_qp_init_attr_ex *a, int ex)
{
	int64_t io[SLOTS] = {0};
	struct emu_qp *qp;
	struct ibv_pd *pd = a->pd;
	int e;

	if (ex && (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD
					      | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)))
		return fail_ptr(EOPNOTSUPP);
	/*
	 * As every provider library does: refuse a send_ops_flags bit its struct ibv_qp_ex has no builder for, so that
	 * the caller may read the builder of every bit it was granted. Not a verbs rule: the contract of
	 * struct ibv_qp_ex, which the native layer probes instead of asking a version.
	 */
	if (ex && (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (a->send_ops_flags & ~EMU_SEND_OPS))
		return fail_ptr(EOPNOTSUPP);
	if (ex && !(a->comp_mask & IBV_QP_INIT_ATTR_PD))
		pd = NULL;
	if (!pd && a->qp_type != IBV_QPT_XRC_RECV)
		return fail_ptr(EINVAL);
	io[0] = pd_h(pd);
	io[1] = a->qp_type;
	io[2] = cq_h(a->send_cq);
	io[3] = cq_h(a->recv_cq);
	io[4] = srq_h(a->srq);
	io[5] = a->cap.max_send_wr;
	io[6] = a->cap.max_recv_wr;
	io[7] = a->cap.max_send_sge;
	io[8] = a->cap.max_recv_sge;
	io[9] = a->cap.max_inline_data;
	io[10] = a->sq_sig_all;
	io[11] = ex && (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ? (int64_t)a->send_ops_flags : -1;
	io[12] = pd && pd->handle == 0xffffffffu ? td_h(((struct emu_parent *)pd)->td) : 0;
	io[21] = ex && (a->comp_mask & IBV_QP_INIT_ATTR_XRCD) ? xrcd_h(a->xrcd) : 0;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail_ptr(ENOMEM);
	io[20] = (int64_t)(uintptr_t)qp;
	e = call(OP_CREATE_QP, io);
	if (e) {
		free(qp);
		return fail_ptr(e);
	}
	qp->h = io[13];
	a->cap.max_send_wr = (uint32_t)io[15];
	a->cap.max_recv_wr = (uint32_t)io[16];
	a->cap.max_send_sge = (uint32_t)io[17];
	a->cap.max_recv_sge = (uint32_t)io[18];
	a->cap.max_inline_data = (uint32_t)io[19];

	struct ibv_qp *b = qp_init(qp, context, a->qp_context, pd, a->qp_type, (uint32_t)io[14]);

	if (a->qp_type != IBV_QPT_XRC_RECV) {
		b->send_cq = a->send_cq;
		b->recv_cq = a->recv_cq;
		b->srq = a->srq;
	}
	return b;
}

/* ibv_open_qp: the mask checks of libibverbs' ibv_cmd_open_qp, then a new handle on the engine's QP. */
static struct ibv_qp *emu_open_qp(struct ibv_context *context, struct ibv_qp_open_attr *attr)
{
	int64_t io[SLOTS] = {0};
	struct emu_qp *qp;
	int e;

	if (attr->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED)
		return fail_ptr(EOPNOTSUPP);
	if (!(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) || !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM)
	    || !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE))
		return fail_ptr(EINVAL);
	io[0] = ctx_h(context);
	io[1] = xrcd_h(attr->xrcd);
	io[2] = attr->qp_num;
	io[3] = attr->qp_type;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail_ptr(ENOMEM);
	io[20] = (int64_t)(uintptr_t)qp;
	e = call(OP_OPEN_QP, io);
	if (e) {
		free(qp);
		return fail_ptr(e);
	}
	qp->h = io[13];
	qp_init(qp, context, attr->qp_context, NULL, attr->qp_type, (uint32_t)io[14])->state = IBV_QPS_UNKNOWN;
	return &qp->qpx.qp_base;
}

static struct ibv_qp *emu_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	return qp_new(context, attr, 1);
}

EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, sizeof(*attr));
	a.pd = pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	qp = qp_new(pd->context, &a, 0);
	if (qp)
		attr->cap = a.cap;
	return qp;
}

EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return &eqp(qp)->qpx;
}

/* ibv_qp_attr <-> io[2..]: the fields in QpAttributes' order. */
static void put_qp_attr(int64_t *io, const struct ibv_qp_attr *a)
{
	io[2] = a->qp_state;
	io[3] = a->cur_qp_state;
	io[4] = a->path_mtu;
	io[5] = a->path_mig_state;
	io[6] = a->qkey;
	io[7] = a->rq_psn;
	io[8] = a->sq_psn;
	io[9] = a->dest_qp_num;
	io[10] = a->qp_access_flags;
	io[11] = a->cap.max_send_wr;
	io[12] = a->cap.max_recv_wr;
	io[13] = a->cap.max_send_sge;
	io[14] = a->cap.max_recv_sge;
	io[15] = a->cap.max_inline_data;
	put_ah(io, 16, &a->ah_attr); /* 16..27 */
	put_ah(io, 28, &a->alt_ah_attr); /* 28..39 */
	io[40] = a->pkey_index;
	io[41] = a->alt_pkey_index;
	io[42] = a->en_sqd_async_notify;
	io[43] = a->sq_draining;
	io[44] = a->max_rd_atomic;
	io[45] = a->max_dest_rd_atomic;
	io[46] = a->min_rnr_timer;
	io[47] = a->port_num;
	io[48] = a->timeout;
	io[49] = a->retry_cnt;
	io[50] = a->rnr_retry;
	io[51] = a->alt_port_num;
	io[52] = a->alt_timeout;
	io[53] = a->rate_limit;
}

static void get_qp_attr(const int64_t *io, struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = (enum ibv_qp_state)io[2];
	a->cur_qp_state = (enum ibv_qp_state)io[3];
	a->path_mtu = (enum ibv_mtu)io[4];
	a->path_mig_state = (enum ibv_mig_state)io[5];
	a->qkey = (uint32_t)io[6];
	a->rq_psn = (uint32_t)io[7];
	a->sq_psn = (uint32_t)io[8];
	a->dest_qp_num = (uint32_t)io[9];
	a->qp_access_flags = (unsigned int)io[10];
	a->cap.max_send_wr = (uint32_t)io[11];
	a->cap.max_recv_wr = (uint32_t)io[12];
	a->cap.max_send_sge = (uint32_t)io[13];
	a->cap.max_recv_sge = (uint32_t)io[14];
	a->cap.max_inline_data = (uint32_t)io[15];
	get_ah(io, 16, &a->ah_attr);
	get_ah(io, 28, &a->alt_ah_attr);
	a->pkey_index = (uint16_t)io[40];
	a->alt_pkey_index = (uint16_t)io[41];
	a->en_sqd_async_notify = (uint8_t)io[42];
	a->sq_draining = (uint8_t)io[43];
	a->max_rd_atomic = (uint8_t)io[44];
	a->max_dest_rd_atomic = (uint8_t)io[45];
	a->min_rnr_timer = (uint8_t)io[46];
	a->port_num = (uint8_t)io[47];
	a->timeout = (uint8_t)io[48];
	a->retry_cnt = (uint8_t)io[49];
	a->rnr_retry = (uint8_t)io[50];
	a->alt_port_num = (uint8_t)io[51];
	a->alt_timeout = (uint8_t)io[52];
	a->rate_limit = (uint32_t)io[53];
}

EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	int64_t io[SLOTS] = {eqp(qp)->h, attr_mask};
	int e;

	put_qp_attr(io, attr);
	e = call(OP_MODIFY_QP, io);
	if (!e && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return e;
}

EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init)
{
	int64_t io[SLOTS] = {eqp(qp)->h, attr_mask};
	int e = call(OP_QUERY_QP, io);

	if (e)
		return e;
	get_qp_attr(io, attr);
	memset(init, 0, sizeof(*init));
	init->qp_context = qp->qp_context;
	init->send_cq = qp->send_cq;
	init->recv_cq = qp->recv_cq;
	init->srq = qp->srq;
	init->cap = attr->cap;
	init->qp_type = qp->qp_type;
	init->sq_sig_all = (int)io[54];
	qp->state = attr->qp_state;
	return 0;
}

EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	int64_t io[SLOTS] = {eqp(qp)->h};
	int e = call(OP_DESTROY_QP, io);

	if (!e) {
		free(eqp(qp)->swr);
		free(eqp(qp)->ssge);
		free(eqp(qp)->inl);
		free(qp);
	}
	return e;
}

EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	int64_t io[SLOTS] = {eqp(qp)->h, op, flags};

	if (call(OP_DATA_IN_ORDER, io))
		return 0;
	return (int)io[3];
}

/* ------------------------------------------------------------------ posting */

/*
 * A flat send WR (WR_SLOTS slots): 0 wr_id, 1 opcode, 2 send_flags, 3 imm (host order) or invalidate rkey,
 * 4 remote_addr, 5 rkey, 6 compare_add, 7 swap, 8 AH, 9 remote_qpn, 10 remote_qkey, 11 first SGE, 12 num_sge,
 * 13 MW, 14 bind rkey, 15 bind MR, 16 bind addr, 17 bind length, 18 bind access, 19 in a session: the data setter
 * called (0 none, 1 an SGE setter, 2 an inline setter; a list of 0 entries is a setter too), 20 remote SRQ number
 * (XRC_SEND). SGEs are 3 slots: addr, length, lkey.
 */
static int is_atomic(int op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static int emu_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	int64_t io[SLOTS] = {eqp(qp)->h};
	size_t n = 0, nsge = 0, i = 0, s = 0;
	int64_t *w, *g;
	int e;

	for (struct ibv_send_wr *p = wr; p; p = p->next) {
		n++;
		nsge += p->num_sge > 0 ? (size_t)p->num_sge : 0;
	}
	w = calloc(n ? n : 1, WR_SLOTS * sizeof(int64_t));
	g = calloc(nsge ? nsge : 1, 3 * sizeof(int64_t));
	for (struct ibv_send_wr *p = wr; p; p = p->next, i++) {
		int64_t *x = w + i * WR_SLOTS;

		x[0] = (int64_t)p->wr_id;
		x[1] = p->opcode;
		x[2] = p->send_flags;
		x[3] = p->opcode == IBV_WR_SEND_WITH_INV ? p->invalidate_rkey : be32toh(p->imm_data);
		if (qp->qp_type == IBV_QPT_UD) {
			x[8] = ah_h(p->wr.ud.ah);
			x[9] = p->wr.ud.remote_qpn;
			x[10] = p->wr.ud.remote_qkey;
		} else if (is_atomic(p->opcode)) {
			x[4] = (int64_t)p->wr.atomic.remote_addr;
			x[5] = p->wr.atomic.rkey;
			x[6] = (int64_t)p->wr.atomic.compare_add;
			x[7] = (int64_t)p->wr.atomic.swap;
		} else {
			x[4] = (int64_t)p->wr.rdma.remote_addr;
			x[5] = p->wr.rdma.rkey;
		}
		if (p->opcode == IBV_WR_BIND_MW) {
			x[13] = mw_h(p->bind_mw.mw);
			x[14] = p->bind_mw.rkey;
			x[15] = mr_h(p->bind_mw.bind_info.mr);
			x[16] = (int64_t)p->bind_mw.bind_info.addr;
			x[17] = (int64_t)p->bind_mw.bind_info.length;
			x[18] = p->bind_mw.bind_info.mw_access_flags;
		}
		if (p->opcode == IBV_WR_LOCAL_INV)
			x[3] = p->invalidate_rkey;
		if (qp->qp_type == IBV_QPT_XRC_SEND)
			x[20] = p->qp_type.xrc.remote_srqn;
		x[11] = (int64_t)s;
		x[12] = p->num_sge;
		for (int k = 0; k < p->num_sge; k++, s++) {
			g[s * 3] = (int64_t)p->sg_list[k].addr;
			g[s * 3 + 1] = p->sg_list[k].length;
			g[s * 3 + 2] = p->sg_list[k].lkey;
		}
	}
	io[1] = (int64_t)n;
	io[2] = (int64_t)(uintptr_t)w;
	io[3] = (int64_t)(uintptr_t)g;
	io[4] = -1;
	e = call(OP_POST_SEND, io);
	if (e && bad_wr) {
		struct ibv_send_wr *p = wr;

		for (int64_t k = 0; p && k < io[4]; k++)
			p = p->next;
		*bad_wr = p;
	}
	free(w);
	free(g);
	return e;
}

/* A flat receive WR: 0 wr_id, 1 first SGE, 2 num_sge. */
static int post_recv_to(int op, int64_t h, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	int64_t io[SLOTS] = {h};
	size_t n = 0, nsge = 0, i = 0, s = 0;
	int64_t *w, *g;
	int e;

	for (struct ibv_recv_wr *p = wr; p; p = p->next) {
		n++;
		nsge += p->num_sge > 0 ? (size_t)p->num_sge : 0;
	}
	w = calloc(n ? n : 1, 3 * sizeof(int64_t));
	g = calloc(nsge ? nsge : 1, 3 * sizeof(int64_t));
	for (struct ibv_recv_wr *p = wr; p; p = p->next, i++) {
		w[i * 3] = (int64_t)p->wr_id;
		w[i * 3 + 1] = (int64_t)s;
		w[i * 3 + 2] = p->num_sge;
		for (int k = 0; k < p->num_sge; k++, s++) {
			g[s * 3] = (int64_t)p->sg_list[k].addr;
			g[s * 3 + 1] = p->sg_list[k].length;
			g[s * 3 + 2] = p->sg_list[k].lkey;
		}
	}
	io[1] = (int64_t)n;
	io[2] = (int64_t)(uintptr_t)w;
	io[3] = (int64_t)(uintptr_t)g;
	io[4] = -1;
	e = call(op, io);
	if (e && bad_wr) {
		struct ibv_recv_wr *p = wr;

		for (int64_t k = 0; p && k < io[4]; k++)
			p = p->next;
		*bad_wr = p;
	}
	free(w);
	free(g);
	return e;
}

static int emu_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return post_recv_to(OP_POST_RECV, eqp(qp)->h, wr, bad_wr);
}

static int emu_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return post_recv_to(OP_POST_SRQ_RECV, srq_h(srq), wr, bad_wr);
}

/* The type 1 bind: the engine's own bindMw, which gives the window its new rkey. */
static int emu_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	int64_t io[SLOTS] = {eqp(qp)->h, mw_h(mw), (int64_t)bind->wr_id, bind->send_flags, mr_h(bind->bind_info.mr),
			     (int64_t)bind->bind_info.addr, (int64_t)bind->bind_info.length,
			     bind->bind_info.mw_access_flags};
	int e = call(OP_BIND_MW, io);

	if (!e)
		mw->rkey = (uint32_t)io[8];
	return e;
}

/* ------------------------------------------------------------------ WR sessions */
/*
 * The builders only record: each WR in post_send's flat form (slot 19: 1 when its data is inline, its entries then
 * being offsets into the session's copy of the inline bytes), forwarded as one batch by wr_complete.
 */
static void grow(void **p, size_t *cap, size_t need, size_t unit)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap * 2 : 16;

	while (c < need)
		c *= 2;
	*p = realloc(*p, c * unit);
	*cap = c;
}

static void wr_start(struct ibv_qp_ex *qpx)
{
	struct emu_qp *q = (struct emu_qp *)qpx;

	q->nwr = q->nsge = q->ninl = 0;
	q->session_error = 0;
}

static int64_t *wr_new(struct ibv_qp_ex *qpx, int opcode)
{
	struct emu_qp *q = (struct emu_qp *)qpx;
	int64_t *x;

	grow((void **)&q->swr, &q->capwr, q->nwr + 1, WR_SLOTS * sizeof(int64_t));
	x = q->swr + q->nwr * WR_SLOTS;
	memset(x, 0, WR_SLOTS * sizeof(int64_t));
	q->nwr++;
	x[0] = (int64_t)qpx->wr_id;
	x[1] = opcode;
	x[2] = qpx->wr_flags;
	x[11] = (int64_t)q->nsge;
	return x;
}

static int64_t *wr_cur(struct ibv_qp_ex *qpx)
{
	struct emu_qp *q = (struct emu_qp *)qpx;

	return q->nwr ? q->swr + (q->nwr - 1) * WR_SLOTS : NULL;
}

static int wr_complete(struct ibv_qp_ex *qpx)
{
	struct emu_qp *q = (struct emu_qp *)qpx;
	int64_t io[SLOTS] = {q->h, (int64_t)q->nwr, (int64_t)(uintptr_t)q->swr, (int64_t)(uintptr_t)q->ssge,
			     (int64_t)(uintptr_t)q->inl, -1};
	int e = q->session_error ? q->session_error : call(OP_WR_COMPLETE, io);

	q->nwr = q->nsge = q->ninl = 0;
	return e;
}

static void wr_abort(struct ibv_qp_ex *qpx)
{
	struct emu_qp *q = (struct emu_qp *)qpx;

	q->nwr = q->nsge = q->ninl = 0;
}

static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	int64_t *x = wr_new(qpx, IBV_WR_RDMA_WRITE);

	x[4] = (int64_t)remote_addr;
	x[5] = rkey;
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, __be32 imm)
{
	int64_t *x = wr_new(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);

	x[3] = be32toh(imm);
	x[4] = (int64_t)remote_addr;
	x[5] = rkey;
}

static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	int64_t *x = wr_new(qpx, IBV_WR_RDMA_READ);

	x[4] = (int64_t)remote_addr;
	x[5] = rkey;
}

static void wr_send(struct ibv_qp_ex *qpx)
{
	wr_new(qpx, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	wr_new(qpx, IBV_WR_SEND_WITH_IMM)[3] = be32toh(imm);
}

static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	wr_new(qpx, IBV_WR_SEND_WITH_INV)[3] = rkey;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	int64_t *x = wr_new(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);

	x[4] = (int64_t)remote_addr;
	x[5] = rkey;
	x[6] = (int64_t)compare;
	x[7] = (int64_t)swap;
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	int64_t *x = wr_new(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);

	x[4] = (int64_t)remote_addr;
	x[5] = rkey;
	x[6] = (int64_t)add;
}

static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	int64_t *x = wr_new(qpx, IBV_WR_BIND_MW);

	x[13] = mw_h(mw);
	x[14] = rkey;
	x[15] = mr_h(info->mr);
	x[16] = (int64_t)info->addr;
	x[17] = (int64_t)info->length;
	x[18] = info->mw_access_flags;
}

/* The 8 bytes to write, in memory order: slot 6 holds them as the loading JVM reads a long there. */
static void wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr)
{
	int64_t *x = wr_new(qpx, IBV_WR_ATOMIC_WRITE);

	x[4] = (int64_t)remote_addr;
	x[5] = rkey;
	memcpy(&x[6], atomic_wr, 8);
}

static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	wr_new(qpx, IBV_WR_LOCAL_INV)[3] = rkey;
}

static void add_sge(struct ibv_qp_ex *qpx, uint64_t addr, uint32_t length, uint32_t lkey)
{
	struct emu_qp *q = (struct emu_qp *)qpx;
	int64_t *x = wr_cur(qpx);

	if (!x) {
		q->session_error = EINVAL;
		return;
	}
	grow((void **)&q->ssge, &q->capsge, q->nsge + 1, 3 * sizeof(int64_t));
	q->ssge[q->nsge * 3] = (int64_t)addr;
	q->ssge[q->nsge * 3 + 1] = length;
	q->ssge[q->nsge * 3 + 2] = lkey;
	q->nsge++;
	x[12]++;
}

static void reset_data(struct ibv_qp_ex *qpx, int inl)
{
	struct emu_qp *q = (struct emu_qp *)qpx;
	int64_t *x = wr_cur(qpx);

	if (x) {
		/* a setter replaces what an earlier one set; its entries are the last ones */
		q->nsge -= (size_t)x[12];
		x[12] = 0;
		x[11] = (int64_t)q->nsge;
		x[19] = inl ? 2 : 1;
	}
}

static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	reset_data(qpx, 0);
	add_sge(qpx, addr, length, lkey);
}

static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge, const struct ibv_sge *sg_list)
{
	reset_data(qpx, 0);
	for (size_t i = 0; i < num_sge; i++)
		add_sge(qpx, sg_list[i].addr, sg_list[i].length, sg_list[i].lkey);
}

static void add_inline(struct ibv_qp_ex *qpx, const void *addr, size_t length)
{
	struct emu_qp *q = (struct emu_qp *)qpx;

	grow((void **)&q->inl, &q->capinl, q->ninl + length + 1, 1);
	memcpy(q->inl + q->ninl, addr, length);
	add_sge(qpx, q->ninl, (uint32_t)length, 0);
	q->ninl += length;
}

static void wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	reset_data(qpx, 1);
	add_inline(qpx, addr, length);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf, const struct ibv_data_buf *buf)
{
	reset_data(qpx, 1);
	for (size_t i = 0; i < num_buf; i++)
		add_inline(qpx, buf[i].addr, buf[i].length);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)
{
	int64_t *x = wr_cur(qpx);

	if (!x) {
		((struct emu_qp *)qpx)->session_error = EINVAL;
		return;
	}
	x[8] = ah_h(ah);
	x[9] = remote_qpn;
	x[10] = remote_qkey;
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	int64_t *x = wr_cur(qpx);

	if (!x) {
		((struct emu_qp *)qpx)->session_error = EINVAL;
		return;
	}
	x[20] = remote_srqn;
}

/* ------------------------------------------------------------------ SRQs */

EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	int64_t io[SLOTS] = {pd_h(pd), attr->attr.max_wr, attr->attr.max_sge, attr->attr.srq_limit};
	struct emu_srq *s = calloc(1, sizeof(*s));
	int e;

	if (!s)
		return fail_ptr(ENOMEM);
	io[7] = (int64_t)(uintptr_t)s;
	e = call(OP_CREATE_SRQ, io);
	if (e) {
		free(s);
		return fail_ptr(e);
	}
	s->h = io[4];
	s->srq.context = pd->context;
	s->srq.srq_context = attr->srq_context;
	s->srq.pd = pd;
	s->srq.handle = (uint32_t)io[4];
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	attr->attr.max_wr = (uint32_t)io[5];
	attr->attr.max_sge = (uint32_t)io[6];
	return &s->srq;
}

/*
 * ibv_create_srq_ex: a basic SRQ as ibv_create_srq makes it; an XRC SRQ in the engine's XRC domain, with its PD and
 * CQ (io[1] the comp_mask and io[2] the type, which the engine checks).
 */
static struct ibv_srq *emu_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *attr)
{
	uint32_t mask = attr->comp_mask;
	int64_t io[SLOTS] = {ctx_h(context), mask, attr->srq_type, pd_h(mask & IBV_SRQ_INIT_ATTR_PD ? attr->pd : NULL),
			     xrcd_h(mask & IBV_SRQ_INIT_ATTR_XRCD ? attr->xrcd : NULL),
			     cq_h(mask & IBV_SRQ_INIT_ATTR_CQ ? attr->cq : NULL), attr->attr.max_wr, attr->attr.max_sge,
			     attr->attr.srq_limit};
	struct emu_srq *s;
	int e;

	if (!(mask & IBV_SRQ_INIT_ATTR_TYPE) || attr->srq_type == IBV_SRQT_BASIC) {
		if (!(mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd)
			return fail_ptr(EINVAL);
		return ibv_create_srq(attr->pd, (struct ibv_srq_init_attr *)attr);
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return fail_ptr(ENOMEM);
	io[9] = (int64_t)(uintptr_t)s;
	e = call(OP_CREATE_SRQ_EX, io);
	if (e) {
		free(s);
		return fail_ptr(e);
	}
	s->h = io[10];
	s->srq.context = context;
	s->srq.srq_context = attr->srq_context;
	s->srq.pd = attr->pd;
	s->srq.handle = (uint32_t)io[10];
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	attr->attr.max_wr = (uint32_t)io[11];
	attr->attr.max_sge = (uint32_t)io[12];
	return &s->srq;
}

static int emu_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	int64_t io[SLOTS] = {srq_h(srq)};
	int e = call(OP_GET_SRQ_NUM, io);

	if (!e)
		*srq_num = (uint32_t)io[1];
	return e;
}

/* XRC domains: the engine's XrcDomain, opened with the fd and oflags as they are (the engine checks them). */
static struct ibv_xrcd *emu_open_xrcd(struct ibv_context *context, struct ibv_xrcd_init_attr *attr)
{
	int64_t io[SLOTS] = {ctx_h(context), attr->comp_mask, attr->fd, attr->oflags};
	struct emu_xrcd *x;
	int e;

	/* as libibverbs' ibv_cmd_open_xrcd */
	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED)
		return fail_ptr(EOPNOTSUPP);
	if (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) || !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS))
		return fail_ptr(EINVAL);
	x = calloc(1, sizeof(*x));
	if (!x)
		return fail_ptr(ENOMEM);
	e = call(OP_OPEN_XRCD, io);
	if (e) {
		free(x);
		return fail_ptr(e);
	}
	x->xrcd.context = context;
	x->h = io[4];
	return &x->xrcd;
}

static int emu_close_xrcd(struct ibv_xrcd *xrcd)
{
	int64_t io[SLOTS] = {xrcd_h(xrcd)};
	int e = call(OP_CLOSE_XRCD, io);

	if (!e)
		free(xrcd);
	return e;
}

EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	int64_t io[SLOTS] = {srq_h(srq), mask, attr->max_wr, attr->srq_limit};

	return call(OP_MODIFY_SRQ, io);
}

EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	int64_t io[SLOTS] = {srq_h(srq)};
	int e = call(OP_QUERY_SRQ, io);

	if (e)
		return e;
	attr->max_wr = (uint32_t)io[1];
	attr->max_sge = (uint32_t)io[2];
	attr->srq_limit = (uint32_t)io[3];
	return 0;
}

EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	int64_t io[SLOTS] = {srq_h(srq)};
	int e = call(OP_DESTROY_SRQ, io);

	if (!e)
		free(srq);
	return e;
}

/* ------------------------------------------------------------------ strings and the rest */
/* From the null libibverbs (benchmarks/c): what the TCK does not reach fails with ENOSYS or EOPNOTSUPP. */

EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	return status == IBV_WC_SUCCESS ? "success" : "error";
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
 * A completion channel's fd is an eventfd the JVM writes 1 to per CQ event it took from the engine's channel;
 * ibv_get_cq_event reads 1 (blocking unless the caller made the fd non-blocking) and asks which CQ it was.
 */
EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	struct emu_channel *c;
	int fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	int e;

	if (fd < 0)
		return NULL;
	io[1] = fd;
	e = call(OP_CREATE_CHANNEL, io);
	if (e) {
		close(fd);
		return fail_ptr(e);
	}
	c = calloc(1, sizeof(*c));
	c->ch.context = context;
	c->ch.fd = fd;
	c->ch.refcnt = 0;
	c->h = io[2];
	return &c->ch;
}

EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	int64_t io[SLOTS] = {((struct emu_channel *)channel)->h};
	int e = call(OP_DESTROY_CHANNEL, io);

	if (e)
		return e;
	close(channel->fd);
	free(channel);
	return 0;
}

EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	int64_t io[SLOTS] = {((struct emu_channel *)channel)->h};
	uint64_t one;
	int e;

	if (read(channel->fd, &one, sizeof(one)) != sizeof(one))
		return -1;
	e = call(OP_GET_CQ_EVENT, io);
	if (e) {
		errno = e;
		return -1;
	}
	*cq = (struct ibv_cq *)(uintptr_t)io[1];
	*cq_context = (*cq)->cq_context;
	return 0;
}

/* The engine's CompletionChannel.awaitEvent acknowledged each event as the JVM's pump took it. */
EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}

EXPORT int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	int64_t io[SLOTS] = {ctx_h(context)};
	uint64_t one;
	int e;

	if (read(context->async_fd, &one, sizeof(one)) != sizeof(one))
		return -1;
	e = call(OP_GET_ASYNC_EVENT, io);
	if (e) {
		errno = e;
		return -1;
	}
	memset(event, 0, sizeof(*event));
	event->event_type = (enum ibv_event_type)io[1];
	if (io[3])
		event->element.port_num = (int)io[3];
	else
		event->element.qp = (struct ibv_qp *)(uintptr_t)io[2]; /* the union's pointers share one address */
	return 0;
}

/* Context.pollAsyncEvent hands each event over once: nothing to acknowledge. */
EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}





/* The GID travels as its 16 raw bytes in slots 1 and 2, in network order. */
static int mcast(int op, struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	int64_t io[SLOTS] = {eqp(qp)->h};

	memcpy(&io[1], gid->raw, 16);
	io[3] = lid;
	return call(op, io);
}

EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return mcast(OP_ATTACH_MCAST, qp, gid, lid);
}

EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return mcast(OP_DETACH_MCAST, qp, gid, lid);
}

EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct emu_mr *m = (struct emu_mr *)mr;
	int64_t io[SLOTS] = {m->h, flags, (flags & IBV_REREG_MR_CHANGE_PD) ? pd_h(pd) : 0, (int64_t)(uintptr_t)addr,
			     (int64_t)length, access};
	int e = call(OP_REREG_MR, io);

	if (e) {
		errno = e;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
	}
	mr->lkey = (uint32_t)io[6];
	mr->rkey = (uint32_t)io[7];
	return 0;
}

EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
					int access)
{
	int64_t io[SLOTS] = {pd_h(pd), (int64_t)offset, (int64_t)length, (int64_t)iova, fd, access};
	int e = call(OP_REG_DMABUF_MR, io);

	if (e)
		return fail_ptr(e);
	return new_mr(pd, (void *)(uintptr_t)iova, length, io, 6);
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
	union ibv_gid gid;
	int e = gid_of(context, port_num, index, &gid, type);

	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ direct verbs: the test-only vendor extension */

/*
 * Direct verbs in the manner of mlx5dv_query_qp and mlx5dv_query_device: what this library knows of a QP or a
 * context that struct ibv_qp and struct ibv_context do not show, here the handle of the engine's object it forwards
 * to. They exist for the example vendor extension (org.verbs4j.emuverbs.dv), which reaches them through verbs4j's
 * IbverbsHandle, so that ./mvnw verify exercises the seam. comp_mask names the fields the caller wants, as in dv
 * calls; a bit this library does not know is EINVAL.
 */
struct emuverbsdv_qp {
	uint64_t comp_mask;
	int64_t handle;
	uint32_t qp_num;
	uint32_t reserved;
};

struct emuverbsdv_context {
	uint64_t comp_mask;
	int64_t handle;
};

enum {
	EMUVERBSDV_MASK_HANDLE = 1 << 0,
};

EXPORT int emuverbsdv_query_qp(struct ibv_qp *qp, struct emuverbsdv_qp *out);
EXPORT int emuverbsdv_query_qp(struct ibv_qp *qp, struct emuverbsdv_qp *out)
{
	if (out->comp_mask & ~(uint64_t)EMUVERBSDV_MASK_HANDLE)
		return EINVAL;
	out->handle = out->comp_mask & EMUVERBSDV_MASK_HANDLE ? eqp(qp)->h : 0;
	out->qp_num = qp->qp_num;
	out->reserved = 0;
	return 0;
}

EXPORT int emuverbsdv_query_context(struct ibv_context *context, struct emuverbsdv_context *out);
EXPORT int emuverbsdv_query_context(struct ibv_context *context, struct emuverbsdv_context *out)
{
	if (out->comp_mask & ~(uint64_t)EMUVERBSDV_MASK_HANDLE)
		return EINVAL;
	out->handle = out->comp_mask & EMUVERBSDV_MASK_HANDLE ? ctx_h(context) : 0;
	return 0;
}

/* verbs_context.modify_cq: the attr_mask checks of rdma-core's ibv_cmd_modify_cq and the kernel's
 * ib_uverbs_ex_modify_cq (none, or a bit past IBV_CQ_ATTR_MODERATE: EINVAL), then the moderation to the JVM. */
static int emu_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	int64_t io[SLOTS] = {cq_h(cq), attr->moderate.cq_count, attr->moderate.cq_period};

	if (!attr->attr_mask || attr->attr_mask >= IBV_CQ_ATTR_RESERVED)
		return EINVAL;
	return call(OP_MODIFY_CQ, io);
}

/* verbs_context.modify_qp_rate_limit: the rate, burst and packet size to the JVM, whose device checks its range. */
static int emu_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr)
{
	int64_t io[SLOTS] = {eqp(qp)->h, attr->rate_limit, attr->max_burst_sz, attr->typical_pkt_sz};

	return call(OP_MODIFY_QP_RATE_LIMIT, io);
}
