// Mir's compositor report (a miniature written for these tests).
#ifndef MIR_COMPOSITOR_REPORT_H
#define MIR_COMPOSITOR_REPORT_H
#include <cstddef>

namespace mir
{
class CompositorReport
{
public:
	void added_display(int width, int height, int x, int y, int id);
	void began_frame(const void *id);
	void buffers_in_frame(const void *id, const unsigned *ids, size_t n);
	void finished_frame(const void *id);
};
}
#endif
