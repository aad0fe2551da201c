/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the request code of src/ublk/: ublk-io.c (what a request
 * becomes), ublk-write.c (writes and appends, the write pipeline, copy
 * ends), ublk-data.c (how the request's data moves: user copy or zero copy),
 * ublk-report.c (zone reports), ublk-reconcile.c (write pointers,
 * read-back, server-placed appends), ublk-nopath.c (a multipath head
 * without a path).
 */
#ifndef ZNP_UBLK_IO_H
#define ZNP_UBLK_IO_H

#include "ublk-priv.h"

/* The library's one NVMe table (dev/nvme-defs.h), by the short names used here. */
enum {
	NVME_CMD_FLUSH = ZNP_NVME_OPC_FLUSH,
	NVME_CMD_WRITE = ZNP_NVME_OPC_WRITE,
	NVME_CMD_READ = ZNP_NVME_OPC_READ,
	NVME_CMD_ZMS = ZNP_NVME_OPC_ZONE_MGMT_SEND,
	NVME_CMD_ZMR = ZNP_NVME_OPC_ZONE_MGMT_RECV,
	NVME_CMD_APPEND = ZNP_NVME_OPC_ZONE_APPEND,
};
#define NVME_RW_FUA		ZNP_NVME_RW_FUA
#define NVME_ZMS_SELECT_ALL	ZNP_NVME_ZMS_SELECT_ALL
#define NVME_ZMR_PARTIAL	ZNP_NVME_ZMR_PARTIAL

/* ublk-io.c */
const char *znp_ublk_op_name(uint8_t op);
/* Commit @err for tag @t's request (logged with @why); its zone goes to the next append. */
void znp_ublk_fail_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err,
		       const char *why);
/* The namespace is gone: leave the request uncommitted, for the next server. */
void znp_ublk_leave_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* LBAs in one NVMe Read/Write command. */
uint32_t znp_ublk_cmd_lbas(const struct znp_ublk_queue *q);
/* The next piece of tag @t from next_lba. Return: 0 or -EBUSY (no SQE). */
int znp_ublk_issue_rw_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode);
/* Every read piece of tag @t from next_lba on. */
void znp_ublk_issue_reads(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* Send a zone operation or flush again (idempotent). Return: 0 or -EBUSY. */
int znp_ublk_resend(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* What a retry does once its wait is over (tag.backoff). */
enum {
	ZNP_RB_NONE,
	ZNP_RB_WP,		/* read the zone's write pointer (a write or append) */
	ZNP_RB_READS,		/* a read or zone report, whole */
	ZNP_RB_RESEND,		/* a zone operation or flush, as it was */
	ZNP_RB_FINISH,		/* a FUA request's Flush (znp_ublk_finish_write()) */
};
/*
 * Retry @what of tag @t after the wait the failed command's status @res
 * asks for (znp_ublk_retry_ms(): the Command Retry Delay, or a backoff),
 * never back to back; the queue serves the others meanwhile.
 */
void znp_ublk_retry_later(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res,
			  uint8_t what);
/* The wait of a retry is over: znp_ublk_io_timer_done() for a tag with backoff set. */
void znp_ublk_retry_now(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
void znp_ublk_log_nvme_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);
/*
 * An NVMe error on a tag. Return: true when handled (retried, reconciled,
 * left to the next server, or failed).
 */
bool znp_ublk_nvme_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);

/* ublk-data.c: how the request's data moves (user copy or zero copy); calls only the ring */
/* A read, write or append mapped to the namespace: how its data will move. */
void znp_ublk_data_begin(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* An NVMe Read or Write of bytes [@off, @off + @len) of the request's data. Return: 0 or -EBUSY. */
int znp_ublk_data_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
			uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12);
/*
 * Bytes [@off, @end) of a write's data within reach of its NVMe commands.
 * Return: 1 they are (zero copy), 0 a copy started (znp_ublk_io_copy_done()
 * follows), -EBUSY no SQE.
 */
int znp_ublk_data_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t off, uint32_t end);
/* A read's data into the request. Return: 1 it is there (zero copy), 0 a copy started, -EBUSY. */
int znp_ublk_data_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/*
 * The request's data in the tag's buffer, to compare with the drive's.
 * Return: 1 it is there, 0 a user copy pulls it (zero copy; then
 * znp_ublk_io_copy_done() with t->pulling), -EBUSY.
 */
int znp_ublk_data_in_buf(struct znp_ublk_queue *q, struct znp_ublk_tag *t);

/* ublk-write.c: writes and appends through the data path, copy ends */
/* A write or append mapped to the namespace: its data, then its pieces. */
void znp_ublk_write_start(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* A read whose pieces are done: its data into the request, then complete it. */
void znp_ublk_read_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* A write piece ended (stage ZNP_ST_IO): its NVMe result @res. */
void znp_ublk_write_piece_end(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);

/* ublk-report.c */
/* A REPORT_ZONES request of @nr_zones from the request's sector. */
void znp_ublk_start_report(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t nr_zones);
/* The next Zone Management Receive of a REPORT_ZONES request. */
void znp_ublk_issue_zmr(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* A Zone Management Receive came back: translate it, next one or copy out. */
void znp_ublk_report_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t);

/* ublk-reconcile.c */
/* Zone Management Receive of the tag's zone; znp_ublk_wp_done() follows. */
void znp_ublk_query_wp(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
void znp_ublk_wp_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);
/* Read back LBAs [@from, @end) (rel. ext.lba); znp_ublk_verify_done() follows. */
void znp_ublk_verify(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t from,
		     uint32_t end);
void znp_ublk_verify_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* An append that owns its zone lets the next one in. */
void znp_ublk_release_zone(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/*
 * Append @t (owning its zone) was just completed: its record is cleared and
 * its zone handed on once the commit is sent (now, or when a deferred
 * commit goes); never when no commit goes (abandon).
 */
void znp_ublk_append_completed(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/*
 * Every piece of a write or append is on the drive: complete it (a FUA one
 * that read-back found on the drive, in part or whole, after a Flush).
 */
void znp_ublk_finish_write(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
/* The Flush of a FUA request done by read-back came back: NVMe result @res. */
void znp_ublk_flush_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);
/* An NVMe error of a write piece. Return: true when handled. */
bool znp_ublk_write_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);

/* ublk-nopath.c */
/* Did @res (of a command of @t) meet a head without a path, or maybe a detach? */
bool znp_ublk_is_nopath(const struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res);
/* Tag @t's commands are back and one found no path: wait, or leave it. */
void znp_ublk_nopath_wait(struct znp_ublk_queue *q, struct znp_ublk_tag *t);

#endif
