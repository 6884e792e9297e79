/* SPDX-License-Identifier: MIT */
/*
 * uprobe_impl.h - what the uprobe backend's two files share: uprobe.c
 * (perf events, ring buffers, the backend's ops, which the bpf backend
 * arms its sites with too) asks uprobe_ev.c (tracefs, the run's uprobe
 * events) for a site's event, and uprobe_ev.c has uprobe.c arm a new
 * binary-wide event for every process.
 */
#ifndef USDT_UPROBE_IMPL_H
#define USDT_UPROBE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct consumer;
struct tevent;
struct tfile;

/* uprobe_ev.c */

/* Find (or mount) tracefs with uprobe_events into c->up.tfs; 0 or -1. */
int up_tracefs_find(struct consumer *c);

/*
 * Delete the events of the group only, or with only NULL those of every
 * group whose consumer is no longer running.
 */
void up_reap_groups(struct consumer *c, const char *only);

/*
 * The event for the site at off in f that fetches what strmask and
 * needs ask (nargs: a note-less site's argument count), made and, if
 * wide, armed for every process when there is none yet; NULL after
 * saying why (c->enable_failed set unless the site's provider refused).
 */
struct tevent *up_event_get(struct consumer *c, struct tfile *f, uint64_t off,
			    uint16_t strmask, uint32_t needs, unsigned nargs,
			    bool wide);

/*
 * The site at off in f armed for pid alone by the backend's site link
 * (c->up.site_link, no tracefs event), fetching what strmask and needs
 * ask: 0, -ENOEXEC when the site takes a uprobe event instead
 * (up_event_get()), or -errno after saying why.
 */
int up_event_link(struct consumer *c, pid_t pid, struct tfile *f,
		  uint64_t off, uint16_t strmask, uint32_t needs,
		  unsigned nargs);

/* The site's binary-wide event, if it has one. */
struct tevent *up_event_wide(struct consumer *c, const struct tfile *f,
			     uint64_t off);

/* uprobe.c */

/* Arm e binary-wide: one perf event per CPU with pid -1; 0 or -errno. */
int up_wide_open(struct consumer *c, struct tevent *e);

#endif
