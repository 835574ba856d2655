#include "overrides.h"

#include <string>
#include <vector>

#include "errors.h"
#include "inputs.h"
#include "names.h"
#include "tensor.h"

namespace omnirt_py {
namespace {

// The tensors an override returned: one, or a tuple/list of them.
std::vector<py::handle> results_of(const py::object& result) {
  std::vector<py::handle> items;
  if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    for (py::handle item : result) items.push_back(item);
  } else {
    items.push_back(result);
  }
  return items;
}

// Input views; each keeps the caller's input alive when the caller is this
// extension's run on this thread (the host passes its inputs through).
py::tuple input_views(const PyOverride& entry, const DLTensor* inputs, size_t num_inputs) {
  const InputBatch* batch = current_batch();
  const bool from_batch = batch != nullptr && batch->size() == num_inputs;
  py::tuple args(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    const py::handle owner =
        from_batch && batch->data()[i].data == inputs[i].data ? batch->owner(i) : py::handle();
    args[i] = to_python(borrow(inputs[i], owner), nullptr, nullptr, entry.outputs);
  }
  return args;
}

omnirt_status run(const PyOverride& entry, const DLTensor* inputs, size_t num_inputs,
                  DLManagedTensor** outputs, size_t output_capacity, size_t* num_outputs) {
  const py::object result = entry.fn(*input_views(entry, inputs, num_inputs));
  const std::vector<py::handle> items = results_of(result);
  *num_outputs = items.size();
  const std::string who = "Python override for tag '" + entry.tag + "'";
  if (items.size() > output_capacity) {
    raise_error(OMNIRT_STATUS_OUT_OF_RANGE, who + " returned " + std::to_string(items.size()) +
                                                " tensors; output capacity is " +
                                                std::to_string(output_capacity));
  }
  std::vector<DLManagedTensor*> taken;
  try {
    const std::string role = who + ": output";
    for (size_t i = 0; i < items.size(); ++i) {
      taken.push_back(take_tensor(items[i], is_stream_device(entry.device_type), role.c_str(), i));
      const DLDevice device = taken.back()->dl_tensor.device;
      if (device.device_type != entry.device_type) {
        raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                    who + " returned output " + std::to_string(i) + " in " +
                        omnirt_probe::device_type_name(device.device_type) + " memory; backend '" +
                        entry.backend + "' keeps tensors in " +
                        omnirt_probe::device_type_name(entry.device_type) + " memory");
      }
    }
  } catch (...) {
    for (DLManagedTensor* t : taken) {
      if (t->deleter != nullptr) t->deleter(t);
    }
    throw;
  }
  for (size_t i = 0; i < taken.size(); ++i) outputs[i] = taken[i];
  return OMNIRT_STATUS_OK;
}

}  // namespace

extern "C" omnirt_status omnirt_py_call_override(void* user_data, const DLTensor* inputs,
                                                 size_t num_inputs, DLManagedTensor** outputs,
                                                 size_t output_capacity, size_t* num_outputs) {
  if (Py_IsInitialized() == 0) return OMNIRT_STATUS_UNAVAILABLE;
  const py::gil_scoped_acquire gil;
  try {
    return run(*static_cast<const PyOverride*>(user_data), inputs, num_inputs, outputs,
               output_capacity, num_outputs);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception in a Python override");
  }
  stash_override_exception();
  try {
    return stashed_override_status();
  } catch (py::error_already_set&) {
    PyErr_Clear();
    return OMNIRT_STATUS_INTERNAL;
  }
}

}  // namespace omnirt_py
