/*
 * post_rate: the C baseline for verbs4j's PostBenchmark.
 *
 * Posts 64-byte RDMA WRITEs from one RC QP to its loopback peer on one device,
 * in batches of 1, 8 and 32 WRs, through the ibv_wr_* calls (ibv_wr_start ...
 * ibv_wr_complete) and through ibv_post_send with a reused chain of WRs, and
 * prints the cost per WR in nanoseconds as JSON on stdout.
 *
 * The loops, each the target of the Java rows doing the same per-WR work
 * (benchmarks/run's report names the C loop of every row, issue 30):
 *  - "wrSession": ibv_wr_start, then per WR wr_id, wr_flags, ibv_wr_rdma_write
 *    and ibv_wr_set_sge, then ibv_wr_complete (Java: WrSession);
 *  - "postSend": per WR wr_id, send_flags, the remote address and the SGE
 *    address rewritten in the reused ibv_send_wr list, then ibv_post_send
 *    (Java: postSend(List), PreparedSends with addresses rewritten, DiSNI's
 *    SVCPostSend);
 *  - "prepared": per WR only wr_id and send_flags rewritten, slot i keeping
 *    the addresses of offset i * 64 set once, then ibv_post_send (Java:
 *    PreparedSends rewriting wrId and flags).
 *
 * The WR pattern is the one of benchmarks/src/main/java/.../WriteStream.java:
 * WR n has wr_id n, writes 64 bytes at offset (n % 32) * 64, and is signaled
 * when n % 32 == 31; the send queue holds 256 WRs, and before a batch would
 * overrun it the CQ is polled (16 entries at a time) until there is room.
 * Like the JMH benchmark, a measured operation is 32 WRs, and an iteration
 * runs whole operations for a fixed time.
 *
 * With -p it then measures polling as PollBenchmark does: 32 signaled WRITEs
 * are posted (not timed), then the time to poll their 32 completions is
 * measured, per completion: "poll" with ibv_poll_cq into a 32-entry ibv_wc
 * array on a CQ from ibv_create_cq, "pollEx" with ibv_start_poll/ibv_next_poll/
 * ibv_end_poll on a CQ from ibv_create_cq_ex with IBV_WC_STANDARD_FLAGS, reading
 * every field a WorkCompletion holds (as the providers do). Both print as
 * batch 32.
 *
 * With -c every duration is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
 * instead of the wall clock, for a machine shared with other work; that clock
 * costs a system call, so polling is then measured with its posts ("postPoll",
 * "postPollEx": post 32 signaled WRITEs and poll them, per WR).
 *
 * usage: post_rate [-d DEVICE] [-g GID_INDEX] [-w WARMUP_ITERS] [-i ITERS]
 *                  [-t ITER_MILLIS] [-p] [-c]
 * Defaults: $VERBS4J_RDMA_DEVICE (else the first device), $VERBS4J_RDMA_GID_INDEX
 * (else 1), 2 warm-up and 3 measured iterations of 1000 ms each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SQ_DEPTH 256
#define SIGNAL_EVERY 32
#define MESSAGE 64
#define SLOTS 32
#define WRS_PER_OP 32
#define PORT 1
#define MAX_ITERS 64
#define OPS_PER_CHECK 64

/* The posting loops, in the order they run and print. */
enum { API_WR_SESSION, API_POST_SEND, API_PREPARED, API_COUNT };
static const char *const API_NAMES[API_COUNT] = {"wrSession", "postSend", "prepared"};

struct stream {
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx; /* when the CQ was made with ibv_create_cq_ex */
	struct ibv_qp *qp;
	struct ibv_qp *peer;
	struct ibv_qp_ex *qpx;
	uint32_t lkey;
	uint32_t rkey;
	uint64_t local;
	uint64_t remote;
	uint64_t posted;
	uint64_t retired;
	struct ibv_send_wr wrs[WRS_PER_OP];
	struct ibv_sge sges[WRS_PER_OP];
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "post_rate: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* The clock of the measurements: wall time, or with -c the thread's CPU time. */
static clockid_t measure_clock = CLOCK_MONOTONIC;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t measure_ns(void)
{
	return clock_ns(measure_clock);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int flags_of(uint64_t n)
{
	return n % SIGNAL_EVERY == SIGNAL_EVERY - 1 ? IBV_SEND_SIGNALED : 0;
}

static void poll_once(struct stream *s)
{
	struct ibv_wc wc[16];
	int got = ibv_poll_cq(s->cq, 16, wc);

	if (got < 0)
		die("ibv_poll_cq failed: %d", got);
	for (int i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			die("WRITE %" PRIu64 " completed with %s", wc[i].wr_id,
			    ibv_wc_status_str(wc[i].status));
		s->retired = wc[i].wr_id + 1;
	}
}

static void make_room(struct stream *s, int batch)
{
	while (s->posted - s->retired + (uint64_t)batch > SQ_DEPTH)
		poll_once(s);
}

static void wr_session_batch(struct stream *s, int batch)
{
	uint64_t n = s->posted;
	int rc;

	make_room(s, batch);
	ibv_wr_start(s->qpx);
	for (int i = 0; i < batch; i++, n++) {
		uint64_t offset = (n % SLOTS) * MESSAGE;

		s->qpx->wr_id = n;
		s->qpx->wr_flags = flags_of(n);
		ibv_wr_rdma_write(s->qpx, s->rkey, s->remote + offset);
		ibv_wr_set_sge(s->qpx, s->lkey, s->local + offset, MESSAGE);
	}
	rc = ibv_wr_complete(s->qpx);
	if (rc)
		die("ibv_wr_complete failed: %s", strerror(rc));
	s->posted = n;
}

static void post_send_batch(struct stream *s, int batch)
{
	uint64_t n = s->posted;
	struct ibv_send_wr *bad = NULL;
	int rc;

	make_room(s, batch);
	for (int i = 0; i < batch; i++, n++) {
		uint64_t offset = (n % SLOTS) * MESSAGE;

		s->wrs[i].wr_id = n;
		s->wrs[i].send_flags = flags_of(n);
		s->wrs[i].wr.rdma.remote_addr = s->remote + offset;
		s->sges[i].addr = s->local + offset;
	}
	rc = ibv_post_send(s->qp, s->wrs, &bad);
	if (rc)
		die("ibv_post_send failed: %s", strerror(rc));
	s->posted = n;
}

/* Only wr_id and send_flags change per post: slot i keeps the addresses set by prepare_slots. */
static void prepared_batch(struct stream *s, int batch)
{
	uint64_t n = s->posted;
	struct ibv_send_wr *bad = NULL;
	int rc;

	make_room(s, batch);
	for (int i = 0; i < batch; i++, n++) {
		s->wrs[i].wr_id = n;
		s->wrs[i].send_flags = flags_of(n);
	}
	rc = ibv_post_send(s->qp, s->wrs, &bad);
	if (rc)
		die("ibv_post_send failed: %s", strerror(rc));
	s->posted = n;
}

/* The "prepared" loop's fixed addresses: slot i at offset (i % SLOTS) * MESSAGE, as WriteStream's PreparedSends. */
static void prepare_slots(struct stream *s)
{
	for (int i = 0; i < WRS_PER_OP; i++) {
		uint64_t offset = (uint64_t)(i % SLOTS) * MESSAGE;

		s->wrs[i].wr.rdma.remote_addr = s->remote + offset;
		s->sges[i].addr = s->local + offset;
	}
}

static void drain(struct stream *s)
{
	uint64_t deadline = now_ns() + 60000000000ull;

	while (s->retired < s->posted - s->posted % SIGNAL_EVERY) {
		poll_once(s);
		if (now_ns() > deadline)
			die("WRITEs up to %" PRIu64 " did not complete within 60 s", s->posted);
	}
}

static void to_rts(struct ibv_qp *qp, uint32_t dest_qpn, union ibv_gid *gid, int gid_index,
		   enum ibv_mtu mtu)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT: %s", strerror(errno));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RTR: %s", strerror(errno));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS: %s", strerror(errno));
}

static struct ibv_qp *create_qp(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex init;
	struct ibv_qp *qp;

	memset(&init, 0, sizeof(init));
	init.qp_type = IBV_QPT_RC;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = SQ_DEPTH;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	init.pd = pd;
	init.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	qp = ibv_create_qp_ex(ctx, &init);
	if (!qp)
		die("ibv_create_qp_ex: %s", strerror(errno));
	return qp;
}

/* A fresh QP pair per measured configuration, as each JMH trial has its own. */
static void open_stream(struct stream *s, struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_mr *src,
			struct ibv_mr *dst, union ibv_gid *gid, int gid_index, enum ibv_mtu mtu, int extended_cq)
{
	memset(s, 0, sizeof(*s));
	if (extended_cq) {
		struct ibv_cq_init_attr_ex ca;

		memset(&ca, 0, sizeof(ca));
		ca.cqe = 4 * SQ_DEPTH / SIGNAL_EVERY + 16;
		ca.wc_flags = IBV_WC_STANDARD_FLAGS;
		s->cqx = ibv_create_cq_ex(ctx, &ca);
		if (!s->cqx)
			die("ibv_create_cq_ex: %s", strerror(errno));
		s->cq = ibv_cq_ex_to_cq(s->cqx);
	} else {
		s->cq = ibv_create_cq(ctx, 4 * SQ_DEPTH / SIGNAL_EVERY + 16, NULL, NULL, 0);
	}
	if (!s->cq)
		die("ibv_create_cq: %s", strerror(errno));
	s->qp = create_qp(ctx, pd, s->cq);
	s->peer = create_qp(ctx, pd, s->cq);
	s->qpx = ibv_qp_to_qp_ex(s->qp);
	if (!s->qpx)
		die("ibv_qp_to_qp_ex returned NULL");
	to_rts(s->qp, s->peer->qp_num, gid, gid_index, mtu);
	to_rts(s->peer, s->qp->qp_num, gid, gid_index, mtu);
	s->lkey = src->lkey;
	s->rkey = dst->rkey;
	s->local = (uintptr_t)src->addr;
	s->remote = (uintptr_t)dst->addr;
	for (int i = 0; i < WRS_PER_OP; i++) {
		s->sges[i].addr = s->local;
		s->sges[i].length = MESSAGE;
		s->sges[i].lkey = s->lkey;
		s->wrs[i].sg_list = &s->sges[i];
		s->wrs[i].num_sge = 1;
		s->wrs[i].opcode = IBV_WR_RDMA_WRITE;
		s->wrs[i].wr.rdma.rkey = s->rkey;
		s->wrs[i].next = i + 1 < WRS_PER_OP ? &s->wrs[i + 1] : NULL;
	}
}

static void close_stream(struct stream *s)
{
	drain(s);
	if (ibv_destroy_qp(s->qp) || ibv_destroy_qp(s->peer) || ibv_destroy_cq(s->cq))
		die("destroying the QPs and CQ failed: %s", strerror(errno));
}

/* Runs whole 32-WR operations for iter_ns; returns nanoseconds per WR. */
static double iteration(struct stream *s, int wr_api, int batch, uint64_t iter_ns)
{
	uint64_t start, end, wrs = 0;

	/* The chain posted by ibv_post_send ends at the batch's last WR. */
	s->wrs[batch - 1].next = NULL;
	start = measure_ns();
	do {
		/* 64 operations of 32 WRs between reads of the clock, which costs more than a WR with -c */
		for (int op = 0; op < OPS_PER_CHECK; op++) {
			for (int k = 0; k < WRS_PER_OP / batch; k++) {
				if (wr_api == API_WR_SESSION)
					wr_session_batch(s, batch);
				else if (wr_api == API_POST_SEND)
					post_send_batch(s, batch);
				else
					prepared_batch(s, batch);
			}
		}
		wrs += WRS_PER_OP * OPS_PER_CHECK;
		end = measure_ns();
	} while (end - start < iter_ns);
	return (double)(end - start) / (double)wrs;
}

#define POLL_N 32

/* Posts POLL_N signaled WRITEs (not timed), then times polling their completions; returns ns. */
static uint64_t poll_invocation(struct stream *s, int extended, int timed, uint64_t *sink)
{
	struct ibv_wc wc[POLL_N];
	uint64_t n = s->posted, start, end;
	int got = 0, rc;

	ibv_wr_start(s->qpx);
	for (int i = 0; i < POLL_N; i++, n++) {
		uint64_t offset = (n % SLOTS) * MESSAGE;

		s->qpx->wr_id = n;
		s->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(s->qpx, s->rkey, s->remote + offset);
		ibv_wr_set_sge(s->qpx, s->lkey, s->local + offset, MESSAGE);
	}
	rc = ibv_wr_complete(s->qpx);
	if (rc)
		die("ibv_wr_complete failed: %s", strerror(rc));
	s->posted = n;
	start = timed ? now_ns() : 0;
	if (!extended) {
		while (got < POLL_N) {
			int k = ibv_poll_cq(s->cq, POLL_N, wc);

			if (k < 0)
				die("ibv_poll_cq failed: %d", k);
			for (int i = 0; i < k; i++) {
				if (wc[i].status != IBV_WC_SUCCESS)
					die("WRITE %" PRIu64 " failed", wc[i].wr_id);
				*sink += wc[i].wr_id;
			}
			got += k;
		}
	} else {
		struct ibv_poll_cq_attr attr = {0};

		while (got < POLL_N) {
			rc = ibv_start_poll(s->cqx, &attr);
			if (rc == ENOENT)
				continue;
			if (rc)
				die("ibv_start_poll failed: %s", strerror(rc));
			do {
				/* every field of a WorkCompletion, as the providers read them */
				if (s->cqx->status != IBV_WC_SUCCESS)
					die("WRITE %" PRIu64 " failed", s->cqx->wr_id);
				*sink += s->cqx->wr_id + ibv_wc_read_opcode(s->cqx) + ibv_wc_read_byte_len(s->cqx) +
					 ibv_wc_read_qp_num(s->cqx) + ibv_wc_read_src_qp(s->cqx) +
					 ibv_wc_read_wc_flags(s->cqx) + ibv_wc_read_slid(s->cqx) + ibv_wc_read_sl(s->cqx) +
					 ibv_wc_read_dlid_path_bits(s->cqx);
				got++;
			} while (got < POLL_N && (rc = ibv_next_poll(s->cqx)) == 0);
			ibv_end_poll(s->cqx);
		}
	}
	end = timed ? now_ns() : 0;
	s->retired = s->posted;
	return end - start;
}

/*
 * With -c: post POLL_N signaled WRITEs and poll their completions, OPS_PER_CHECK times between reads of the
 * thread's CPU clock (too slow to read around each poll); returns CPU ns per WR, posting included.
 */
static double post_poll_iteration(struct stream *s, int extended, uint64_t iter_ns, uint64_t *sink)
{
	uint64_t start = measure_ns(), end, wrs = 0;

	do {
		for (int op = 0; op < OPS_PER_CHECK; op++)
			poll_invocation(s, extended, 0, sink);
		wrs += (uint64_t)POLL_N * OPS_PER_CHECK;
		end = measure_ns();
	} while (end - start < iter_ns);
	return (double)(end - start) / (double)wrs;
}

/* Runs poll invocations until iter_ns of polling time have passed; returns ns per completion. */
static double poll_iteration(struct stream *s, int extended, uint64_t iter_ns, uint64_t *sink)
{
	uint64_t spent = 0, completions = 0, wall = now_ns();

	do {
		spent += poll_invocation(s, extended, 1, sink);
		completions += POLL_N;
	} while (now_ns() - wall < iter_ns);
	return (double)spent / (double)completions;
}

int main(int argc, char **argv)
{
	const char *dev_name = getenv("VERBS4J_RDMA_DEVICE");
	const char *gid_env = getenv("VERBS4J_RDMA_GID_INDEX");
	int gid_index = gid_env && *gid_env ? atoi(gid_env) : 1;
	int warmup = 2, iters = 3, millis = 1000, opt, ndev, polls = 0;
	uint64_t sink = 0;
	static const int batches[] = {1, 8, 32};
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_mr *src, *dst;
	void *a, *b;
	int first = 1;

	while ((opt = getopt(argc, argv, "d:g:w:i:t:pc")) != -1) {
		switch (opt) {
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'i': iters = atoi(optarg); break;
		case 't': millis = atoi(optarg); break;
		case 'p': polls = 1; break;
		case 'c': measure_clock = CLOCK_THREAD_CPUTIME_ID; break;
		default:
			fprintf(stderr, "usage: post_rate [-d DEVICE] [-g GID_INDEX] [-w WARMUP_ITERS] [-i ITERS] "
					"[-t ITER_MILLIS] [-p] [-c]\n");
			return 2;
		}
	}
	if (iters < 1 || iters > MAX_ITERS || warmup < 0 || millis < 1)
		die("need 1..%d iterations, >= 0 warm-up iterations and >= 1 ms each", MAX_ITERS);

	list = ibv_get_device_list(&ndev);
	if (!list || ndev == 0)
		die("no RDMA device");
	for (int i = 0; i < ndev && !dev; i++)
		if (!dev_name || !*dev_name || !strcmp(ibv_get_device_name(list[i]), dev_name))
			dev = list[i];
	if (!dev)
		die("no device named %s", dev_name);
	ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device: %s", strerror(errno));
	if (ibv_query_port(ctx, PORT, &port))
		die("ibv_query_port: %s", strerror(errno));
	if (ibv_query_gid(ctx, PORT, gid_index, &gid))
		die("ibv_query_gid %d: %s", gid_index, strerror(errno));
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	if (posix_memalign(&a, 4096, SLOTS * MESSAGE) || posix_memalign(&b, 4096, SLOTS * MESSAGE))
		die("out of memory");
	memset(a, 0x5a, SLOTS * MESSAGE);
	memset(b, 0, SLOTS * MESSAGE);
	src = ibv_reg_mr(pd, a, SLOTS * MESSAGE, IBV_ACCESS_LOCAL_WRITE);
	dst = ibv_reg_mr(pd, b, SLOTS * MESSAGE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!src || !dst)
		die("ibv_reg_mr: %s", strerror(errno));

	printf("{\"tool\":\"post_rate\",\"device\":\"%s\",\"gid_index\":%d,\"message_bytes\":%d,"
	       "\"sq_depth\":%d,\"signal_every\":%d,\"warmup_iterations\":%d,\"iteration_ms\":%d,\"clock\":\"%s\",\"results\":[",
	       ibv_get_device_name(dev), gid_index, MESSAGE, SQ_DEPTH, SIGNAL_EVERY, warmup, millis,
	       measure_clock == CLOCK_MONOTONIC ? "wall" : "thread-cpu");
	for (int api = 0; api < API_COUNT; api++) {
		for (unsigned bi = 0; bi < sizeof(batches) / sizeof(batches[0]); bi++) {
			int batch = batches[bi];
			struct stream s;
			double v[MAX_ITERS], sum = 0;

			open_stream(&s, ctx, pd, src, dst, &gid, gid_index, port.active_mtu, 0);
			if (api == API_PREPARED)
				prepare_slots(&s);
			for (int i = 0; i < warmup; i++)
				iteration(&s, api, batch, (uint64_t)millis * 1000000u);
			for (int i = 0; i < iters; i++) {
				v[i] = iteration(&s, api, batch, (uint64_t)millis * 1000000u);
				sum += v[i];
			}
			close_stream(&s);
			printf("%s{\"api\":\"%s\",\"batch\":%d,\"ns_per_wr\":%.3f,\"iterations\":[", first ? "" : ",",
			       API_NAMES[api], batch, sum / iters);
			for (int i = 0; i < iters; i++)
				printf("%s%.3f", i ? "," : "", v[i]);
			printf("]}");
			fflush(stdout);
			first = 0;
		}
	}
	for (int extended = 0; polls && extended <= 1; extended++) {
		struct stream s;
		double v[MAX_ITERS], sum = 0;

		open_stream(&s, ctx, pd, src, dst, &gid, gid_index, port.active_mtu, extended);
		double (*it)(struct stream *, int, uint64_t, uint64_t *) =
			measure_clock == CLOCK_MONOTONIC ? poll_iteration : post_poll_iteration;

		for (int i = 0; i < warmup; i++)
			it(&s, extended, (uint64_t)millis * 1000000u, &sink);
		for (int i = 0; i < iters; i++) {
			v[i] = it(&s, extended, (uint64_t)millis * 1000000u, &sink);
			sum += v[i];
		}
		close_stream(&s);
		printf(",{\"api\":\"%s\",\"batch\":%d,\"ns_per_wr\":%.3f,\"iterations\":[",
		       measure_clock == CLOCK_MONOTONIC ? (extended ? "pollEx" : "poll") : (extended ? "postPollEx" : "postPoll"),
		       POLL_N, sum / iters);
		for (int i = 0; i < iters; i++)
			printf("%s%.3f", i ? "," : "", v[i]);
		printf("]}");
		fflush(stdout);
	}
	printf("]}\n");
	if (sink == 1)
		fprintf(stderr, "(sink)\n");
	ibv_dereg_mr(src);
	ibv_dereg_mr(dst);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
