/*
 * null_rdmacm.c: a librdmacm of our own for the null libibverbs (null_ibverbs.c), built by
 * benchmarks/c/build-disni into benchmarks/target/nullrdmacm/librdmacm.so.1. It exists so that a binding that
 * reaches its verbs context only through the RDMA connection manager (DiSNI: the context of an rdma_cm_id) can be
 * measured on null0 beside C and verbs4j (issue 30).
 *
 * There is no connection manager behind it and no address resolution:
 *  - rdma_create_event_channel returns a channel whose fd is an eventfd that never becomes readable;
 *  - rdma_create_id returns an id whose verbs context is null0's, opened once for the process (the context a
 *    bound id of a real librdmacm would hold); rdma_bind_addr accepts any address and keeps it as the source;
 *  - rdma_create_qp creates the QP with ibv_create_qp on that context and moves it to RTS at once, connected
 *    to itself (null0 needs no peer: its RDMA WRITEs only record the WR and complete the signaled ones);
 *  - rdma_destroy_qp, rdma_destroy_id, rdma_destroy_ep and rdma_destroy_event_channel release what they own;
 *  - every other call that DiSNI's native library links (listen, resolve, connect, accept, disconnect, CM
 *    events) fails with ENOSYS (-1 and errno).
 * One thread per id, as in the null libibverbs: it takes no locks, except the one that opens null0 once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_once_t null_once = PTHREAD_ONCE_INIT;
static struct ibv_context *null_context;
static int null_errno;

static void open_null0(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (!list || n < 1) {
		null_errno = list ? ENODEV : errno;
		if (list)
			ibv_free_device_list(list);
		return;
	}
	null_context = ibv_open_device(list[0]);
	if (!null_context)
		null_errno = errno ? errno : ENODEV;
	ibv_free_device_list(list);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rdma_event_channel *ch = calloc(1, sizeof(*ch));

	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ch->fd = eventfd(0, EFD_CLOEXEC);
	if (ch->fd < 0) {
		int e = errno;

		free(ch);
		errno = e;
		return NULL;
	}
	return ch;
}

EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (!channel)
		return;
	close(channel->fd);
	free(channel);
}

EXPORT int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
			  enum rdma_port_space ps)
{
	struct rdma_cm_id *cm;

	if (!id)
		return fail(EINVAL);
	pthread_once(&null_once, open_null0);
	if (!null_context)
		return fail(null_errno ? null_errno : ENODEV);
	cm = calloc(1, sizeof(*cm));
	if (!cm)
		return fail(ENOMEM);
	cm->verbs = null_context;
	cm->channel = channel;
	cm->context = context;
	cm->ps = ps;
	cm->port_num = 1;
	*id = cm;
	return 0;
}

EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	if (!id)
		return fail(EINVAL);
	if (id->qp)
		return fail(EBUSY);
	free(id);
	return 0;
}

EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (!id || !addr)
		return fail(EINVAL);
	if (addr->sa_family == AF_INET)
		memcpy(&id->route.addr.src_addr, addr, sizeof(struct sockaddr_in));
	else if (addr->sa_family == AF_INET6)
		memcpy(&id->route.addr.src_addr, addr, sizeof(struct sockaddr_in6));
	else
		return fail(EAFNOSUPPORT);
	return 0;
}

EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp *qp;
	struct ibv_qp_attr a;
	int rc;

	if (!id || !pd || !qp_init_attr || pd->context != id->verbs)
		return fail(EINVAL);
	if (id->qp)
		return fail(EBUSY);
	qp = ibv_create_qp(pd, qp_init_attr);
	if (!qp)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (!rc) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.ah_attr.port_num = 1;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	}
	if (!rc) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	}
	if (rc) {
		ibv_destroy_qp(qp);
		return fail(rc);
	}
	id->qp = qp;
	id->pd = pd;
	id->send_cq = qp_init_attr->send_cq;
	id->recv_cq = qp_init_attr->recv_cq;
	return 0;
}

EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id || !id->qp)
		return;
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
}

EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* ------------------------------------------------------------------ not provided: ENOSYS */

EXPORT int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
			     int timeout_ms)
{
	(void)id, (void)src_addr, (void)dst_addr, (void)timeout_ms;
	return fail(ENOSYS);
}

EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)id, (void)timeout_ms;
	return fail(ENOSYS);
}

EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id, (void)backlog;
	return fail(ENOSYS);
}

EXPORT int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void)id, (void)conn_param;
	return fail(ENOSYS);
}

EXPORT int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	(void)id, (void)conn_param;
	return fail(ENOSYS);
}

EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	return fail(ENOSYS);
}

EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	(void)channel, (void)event;
	return fail(ENOSYS);
}

EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	(void)event;
	return fail(ENOSYS);
}
