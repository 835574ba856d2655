// Counts the CPU memory libtorch allocates for the cpu backend's modules
// into the backend's memory statistics (engine_api.h: the memory scope).
//
// libtorch has one CPU allocator per process (c10::GetCPUAllocator). On the
// first scope the engine puts this one in front of whichever is there and
// delegates every allocation to it, so the memory itself still comes from
// libtorch's own (or an embedder's) allocator and other users of libtorch in
// the process keep working. Only allocations made on a thread while it is
// inside a scope (an engine call: load or run) are counted, into that
// scope's ledger; each counted block remembers its ledger, so its free is
// counted there whenever and on whatever thread the block dies (an output
// released later, a module destroyed).
#ifndef OMNIRT_CPU_ENGINE_COUNTING_ALLOCATOR_H_
#define OMNIRT_CPU_ENGINE_COUNTING_ALLOCATOR_H_

#include "engine_api.h"

namespace omnirt::cpu_engine {

/// Counts this thread's CPU allocations into `ledger` (borrowed until the
/// scope ends; NULL counts nothing) and returns the ledger counting before,
/// which end_scope puts back.
const omnirt_cpu_engine_ledger* begin_scope(const omnirt_cpu_engine_ledger* ledger);
void end_scope(const omnirt_cpu_engine_ledger* previous) noexcept;

/// True while libtorch's CPU allocator is the counting one. It is not when
/// another allocator had been installed with a higher priority, or replaced
/// it later: the figures then leave the modules' memory out.
bool memory_counted() noexcept;

}  // namespace omnirt::cpu_engine

#endif  // OMNIRT_CPU_ENGINE_COUNTING_ALLOCATOR_H_
