#include "cpu_graph.h"

#include <utility>

namespace omnirt::cpu {

CpuGraph::CpuGraph(std::vector<CpuStream::Command> commands) : commands_(std::move(commands)) {}

void CpuGraph::launch(CpuStream& stream) const {
  for (const auto& command : commands_) stream.submit(command);
}

}  // namespace omnirt::cpu
