// omnirt-vet: the host's vetting helper. libomnirt.so starts it, one process
// per candidate plugin, to load the plugin as the host would before the host
// loads it into its own process (docs/vetting.md). Not meant to be run by hand.
#include "vetting/vet_child.h"

int main(int argc, char** argv) { return omnirt::vetting::vet_child_main(argc, argv); }
