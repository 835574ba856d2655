// The vetting helper's side (tools/vet/omnirt-vet): loads one candidate with
// the host's own loader, as the host would, reporting each step on
// kReportFd, then unloads it.
#ifndef OMNIRT_CORE_VETTING_VET_CHILD_H_
#define OMNIRT_CORE_VETTING_VET_CHILD_H_

namespace omnirt::vetting {

/// main() of omnirt-vet. Arguments: <real path> <backend name from the file
/// name> [<option key> <option value>]... (the options create() gets).
/// Exits 0 after writing "done"; 2 for bad arguments. Whatever else ends it
/// is the plugin's doing.
int vet_child_main(int argc, char** argv) noexcept;

}  // namespace omnirt::vetting

#endif  // OMNIRT_CORE_VETTING_VET_CHILD_H_
