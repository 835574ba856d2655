#include "vtable_slots.h"

#include <cstring>

namespace omnirt {

using slots::kVtableSlots;
using slots::Slot;

const void* slot_address(const omnirt_backend_vtable& vtable, const Slot& slot) noexcept {
  const void* address = nullptr;
  std::memcpy(&address, reinterpret_cast<const char*>(&vtable) + slot.offset, sizeof address);
  return address;
}

std::vector<std::string_view> missing_required_slots(const omnirt_backend_vtable& vtable) {
  std::vector<std::string_view> missing;
  for (const Slot& slot : kVtableSlots) {
    if (slot.required() && slot_address(vtable, slot) == nullptr) missing.emplace_back(slot.name);
  }
  return missing;
}

void clear_unadvertised_slots(omnirt_backend_vtable* vtable, uint64_t features) noexcept {
  for (const Slot& slot : kVtableSlots) {
    if (!slot.gated || (features & slot.feature) != 0) continue;
    std::memset(reinterpret_cast<char*>(vtable) + slot.offset, 0, sizeof(void (*)()));
  }
}

}  // namespace omnirt
