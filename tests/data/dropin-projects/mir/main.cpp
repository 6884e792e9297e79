// A Mir server composing `argv[1]` frames (a miniature written for these
// tests): the display is added once, each frame has frame + 1 buffers.
#include "compositor_report.h"
#include <cstdint>
#include <cstdlib>

int main(int argc, char **argv)
{
	mir::CompositorReport report;
	int frames = argc > 1 ? std::atoi(argv[1]) : 1;
	unsigned ids[8] = { 0 };

	report.added_display(1920, 1080, 0, 0, 7);
	for (int i = 0; i < frames && i < 8; i++) {
		const void *id = reinterpret_cast<const void *>(
			static_cast<uintptr_t>(100 + i));

		report.began_frame(id);
		report.buffers_in_frame(id, ids, static_cast<size_t>(i + 1));
		report.finished_frame(id);
	}
	return 0;
}
