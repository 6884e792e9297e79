// The LTTng compositor report of Mir's server (a miniature written for
// these tests): every event is an LTTng tracepoint, and with
// LTTNG_UST_HAVE_SDT_INTEGRATION also a stapsdt probe.
#include "compositor_report.h"
#include <lttng/tracepoint.h>

#define mir_tracepoint(...) tracepoint(__VA_ARGS__)

void mir::CompositorReport::added_display(int width, int height, int x, int y,
					  int id)
{
	mir_tracepoint(mir_server_compositor, added_display, width, height, x,
		       y, id);
}

void mir::CompositorReport::began_frame(const void *id)
{
	mir_tracepoint(mir_server_compositor, began_frame, id);
}

void mir::CompositorReport::buffers_in_frame(const void *id,
					     const unsigned *ids, size_t n)
{
	mir_tracepoint(mir_server_compositor, buffers_in_frame, id, ids, n);
}

void mir::CompositorReport::finished_frame(const void *id)
{
	mir_tracepoint(mir_server_compositor, finished_frame, id);
}
