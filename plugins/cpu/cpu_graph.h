// A cpu graph: the calls captured from a stream, replayable on any stream.
#ifndef OMNIRT_PLUGINS_CPU_CPU_GRAPH_H_
#define OMNIRT_PLUGINS_CPU_CPU_GRAPH_H_

#include <vector>

#include "cpu_stream.h"

namespace omnirt::cpu {

class CpuGraph {
 public:
  explicit CpuGraph(std::vector<CpuStream::Command> commands);

  // Submits the captured calls to `stream` in capture order, as if they were
  // made on it now (so launching into a capturing stream captures them).
  void launch(CpuStream& stream) const;

 private:
  const std::vector<CpuStream::Command> commands_;
};

}  // namespace omnirt::cpu

#endif  // OMNIRT_PLUGINS_CPU_CPU_GRAPH_H_
