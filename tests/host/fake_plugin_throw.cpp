// The zoo's badly written plugins: fake_plugin.c compiled as C++ so that an
// exception can escape the entry point (FAKE_THROW_IN_ENTRY) or a slot
// (FAKE_THROW_IN_SLOT), which the host must catch.
#include <stdexcept>

#define FAKE_THROW(what) throw std::runtime_error(what)
#include "fake_plugin.c"
